// A throwaway MIT Kerberos realm for integration tests (Debian's krb5-kdc, krb5-admin-server and
// krb5-user; `npm test` installs them through scripts/lib/stack/ensure-tools.ts). Everything lives under
// `dir`: krb5.conf and kdc.conf (pointed at through KRB5_CONFIG and KRB5_KDC_PROFILE, so no
// system-wide file is read or written), the database, keytabs, credential caches and the KDC log.
// One krb5kdc child process on a free port (TCP and UDP); principals get random keys (kadmin.local
// addprinc -randkey) and keytabs (ktadd), clients get tickets in private caches (kinit -kt).
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { connect } from 'node:net';
import { supervise, waitReady } from './child-server.ts';
import { freePort } from '../../scripts/lib/stack/probes.ts';

export interface KdcOptions {
  /** config, database, keytabs, caches, log; created if missing */
  readonly dir: string;
  /** default TSI.TEST */
  readonly realm?: string;
}

export interface Kdc {
  readonly realm: string;
  readonly port: number;
  /** the realm's krb5.conf (for KRB5_CONFIG, or -Djava.security.krb5.conf in a JVM) */
  readonly krb5Conf: string;
  /** KRB5_CONFIG and KRB5_KDC_PROFILE of this realm, for child processes */
  readonly env: Readonly<Record<string, string>>;
  /** Adds `principal` (e.g. HTTP/localhost) with a random key and writes its keytab; returns the keytab path. */
  addPrincipal(principal: string): string;
  /** Gives the principal a new random key: tickets and keytabs issued before no longer match. */
  rekey(principal: string): void;
  /** kinit -kt into a private credential cache (FILE:…); returns the KRB5CCNAME value. */
  kinit(principal: string, keytab: string, ccacheFile: string): string;
  /** kdestroy: the cache's tickets are gone (as when they expire unrenewed). */
  kdestroy(ccacheFile: string): void;
  /** The KDC's log so far (AS_REQ / TGS_REQ lines name client and service). */
  log(): string;
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 15_000;

/** An MIT Kerberos admin binary: on PATH or in the sbin folders a non-root PATH leaves out. */
export function krbTool(command: string): string {
  const dirs = [...(process.env['PATH'] ?? '').split(delimiter), '/usr/sbin', '/sbin', '/usr/local/sbin'];
  const found = dirs
    .filter((d) => d !== '')
    .map((d) => join(d, command))
    .find((p) => existsSync(p));
  if (found === undefined)
    throw new Error(`${command} not found: the Kerberos tests need Debian's krb5-kdc, krb5-admin-server and krb5-user (npm test installs them)`);
  return found;
}

function run(cmd: string, args: readonly string[], env: Readonly<Record<string, string>>, what: string): string {
  const res = spawnSync(krbTool(cmd), args, { env: { ...process.env, ...env }, encoding: 'utf8' });
  if (res.error !== undefined || res.status !== 0) {
    throw new Error(`${what} failed (${res.error?.message ?? `exit ${String(res.status)}`}): ${`${res.stdout}${res.stderr}`.slice(-2000)}`);
  }
  return res.stdout;
}

function tcpAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port }, () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => {
      resolve(false);
    });
  });
}

export async function startKdc(o: KdcOptions): Promise<Kdc> {
  const realm = o.realm ?? 'TSI.TEST';
  const dir = o.dir;
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const krb5Conf = join(dir, 'krb5.conf');
  const kdcConf = join(dir, 'kdc.conf');
  const logFile = join(dir, 'kdc.log');
  writeFileSync(
    krb5Conf,
    [
      '[libdefaults]',
      `  default_realm = ${realm}`,
      '  dns_lookup_realm = false',
      '  dns_lookup_kdc = false',
      '  rdns = false',
      '  ignore_acceptor_hostname = true',
      '  udp_preference_limit = 1',
      '  forwardable = false',
      `  default_ccache_name = FILE:${join(dir, 'ccache-default')}`,
      '[realms]',
      `  ${realm} = {`,
      `    kdc = 127.0.0.1:${port}`,
      '  }',
      '[domain_realm]',
      `  localhost = ${realm}`,
      `  127.0.0.1 = ${realm}`,
      '',
    ].join('\n'),
  );
  writeFileSync(
    kdcConf,
    [
      '[kdcdefaults]',
      `  kdc_ports = ${port}`,
      `  kdc_tcp_ports = ${port}`,
      '[realms]',
      `  ${realm} = {`,
      `    database_name = ${join(dir, 'principal')}`,
      `    key_stash_file = ${join(dir, 'stash')}`,
      `    acl_file = ${join(dir, 'kadm5.acl')}`,
      '    max_life = 1h',
      '    max_renewable_life = 0',
      '    supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal',
      '  }',
      '[logging]',
      `  kdc = FILE:${logFile}`,
      '',
    ].join('\n'),
  );
  writeFileSync(join(dir, 'kadm5.acl'), '');
  const env = { KRB5_CONFIG: krb5Conf, KRB5_KDC_PROFILE: kdcConf };
  // The master key of a database that lives for one test; stashed, never shown.
  run('kdb5_util', ['create', '-s', '-r', realm, '-P', randomBytes(24).toString('hex')], env, 'kdb5_util create');
  const kadmin = (query: string): string => run('kadmin.local', ['-r', realm, '-q', query], env, `kadmin.local ${query}`);

  const out = openSync(join(dir, 'krb5kdc.out'), 'a');
  const child = (() => {
    try {
      return spawn(krbTool('krb5kdc'), ['-n', '-r', realm, '-P', join(dir, 'krb5kdc.pid')], { stdio: ['ignore', out, out], env: { ...process.env, ...env } });
    } finally {
      closeSync(out);
    }
  })();
  const s = supervise(child, 5_000);
  const tail = (f: string): string => (existsSync(f) ? readFileSync(f, 'utf8').split('\n').slice(-30).join('\n') : '(none)');
  await waitReady(`krb5kdc on 127.0.0.1:${port}`, s, {
    ready: () => tcpAnswers(port),
    timeoutMs: START_TIMEOUT_MS,
    everyMs: 100,
    diagnose: () => `${logFile}:\n${tail(logFile)}\n${tail(join(dir, 'krb5kdc.out'))}`,
  });

  const keytabName = (principal: string): string => join(dir, `${principal.replace(/[^A-Za-z0-9]+/g, '_')}.keytab`);
  return {
    realm,
    port,
    krb5Conf,
    env,
    addPrincipal(principal) {
      const keytab = keytabName(principal);
      kadmin(`addprinc -randkey ${principal}`);
      kadmin(`ktadd -k ${keytab} ${principal}`);
      return keytab;
    },
    rekey(principal) {
      kadmin(`cpw -randkey ${principal}`);
    },
    kinit(principal, keytab, ccacheFile) {
      const ccache = `FILE:${ccacheFile}`;
      run('kinit', ['-kt', keytab, '-c', ccache, `${principal}@${realm}`], env, `kinit ${principal}`);
      return ccache;
    },
    kdestroy(ccacheFile) {
      run('kdestroy', ['-c', `FILE:${ccacheFile}`], env, 'kdestroy');
    },
    log: () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''),
    stop: () => s.stop(),
  };
}
