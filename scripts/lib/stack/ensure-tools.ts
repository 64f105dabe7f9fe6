// Command-line tools the tests need besides Java and Maven: `promtool` (rule checks and rule unit
// tests) and `prometheus` (the dashboard integration test), both from Debian's `prometheus` package;
// `chromium` (the /ui test); `nginx` (the TLS proxy in front of the REST gateway, test/support/nginx.ts);
// MIT Kerberos (a throwaway KDC, test/support/kdc.ts) and its headers, which the optional `kerberos`
// npm package (SPNEGO to the gateway) builds against: ensureKerberosClient builds it when npm ci
// could not. Missing and running as root with apt-get: installed. Otherwise: a clear error saying
// what to do.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, cpSync, existsSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { projectRoot, stackLayout } from './config.ts';

export interface Tool {
  /** executable looked up on PATH */
  readonly command: string;
  /** Debian package that provides it */
  readonly aptPackage: string;
  /** arguments that print the version and exit 0; default ['--version']; null: none does, being found is enough */
  readonly versionArgs?: readonly string[] | null;
}

export const TEST_TOOLS: readonly Tool[] = [
  { command: 'promtool', aptPackage: 'prometheus' },
  { command: 'prometheus', aptPackage: 'prometheus' },
  // headless browser for the /ui page test (test/integration/ui)
  { command: 'chromium', aptPackage: 'chromium' },
  // authenticating TLS proxy in front of the REST gateway (test/integration/hbase/nginx-proxy.test.ts)
  { command: 'nginx', aptPackage: 'nginx', versionArgs: ['-v'] },
  // a throwaway KDC for the SPNEGO test (test/integration/hbase/spnego.local.test.ts); admin tools live in /usr/sbin
  { command: 'krb5kdc', aptPackage: 'krb5-kdc', versionArgs: null },
  { command: 'kadmin.local', aptPackage: 'krb5-admin-server', versionArgs: null },
  { command: 'kinit', aptPackage: 'krb5-user', versionArgs: null },
  // GSS-API headers the optional `kerberos` npm package compiles against
  { command: 'krb5-config', aptPackage: 'libkrb5-dev' },
];

/** Daemons the packages above start on install; without systemd, the pid file the init script writes. */
const PACKAGED_DAEMONS: readonly { readonly service: string; readonly pidFile?: string }[] = [
  { service: 'prometheus.service' },
  { service: 'nginx.service', pidFile: '/run/nginx.pid' },
  { service: 'krb5-kdc.service' },
  { service: 'krb5-admin-server.service' },
];

export class MissingToolError extends Error {
  override readonly name = 'MissingToolError';
}

/** An executable `command` on PATH or in an sbin folder (a non-root PATH may leave those out). */
function found(command: string): boolean {
  const dirs = [...(process.env['PATH'] ?? '').split(delimiter), '/usr/sbin', '/sbin'].filter((d) => d !== '');
  return dirs.some((d) => {
    try {
      accessSync(join(d, command), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

function answers(command: string, versionArgs: readonly string[] | null = ['--version']): boolean {
  if (versionArgs === null) return found(command);
  const res = spawnSync(command, versionArgs, { stdio: 'ignore' });
  return res.error === undefined && res.status === 0;
}

function run(command: string, args: readonly string[], log: (m: string) => void, env: Readonly<Record<string, string>> = {}): void {
  log(`${command} ${args.join(' ')}`);
  const res = spawnSync(command, args, {
    cwd: projectRoot,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive', ...env },
  });
  if (res.error !== undefined || res.status !== 0) {
    throw new MissingToolError(`${command} ${args.join(' ')} failed (${res.error?.message ?? `exit ${String(res.status)}`})`);
  }
}

/** Only the binaries are wanted: stop (and on systemd hosts disable) any daemon a package started. */
function stopPackagedDaemons(log: (m: string) => void): void {
  const systemd = existsSync('/run/systemd/system') && answers('systemctl');
  for (const { service, pidFile } of PACKAGED_DAEMONS) {
    if (systemd) {
      if (spawnSync('systemctl', ['is-active', '--quiet', service], { stdio: 'ignore' }).status !== 0) continue;
      log(`stopping and disabling the ${service} the package started (the tests run their own)`);
      spawnSync('systemctl', ['disable', '--now', service], { stdio: 'ignore' });
    } else if (pidFile !== undefined && existsSync(pidFile)) {
      const pid = Number(readFileSync(pidFile, 'utf8').trim());
      const name = service.replace(/\.service$/, '');
      const cmdline = Number.isSafeInteger(pid) && pid > 0 && existsSync(`/proc/${pid}/cmdline`) ? readFileSync(`/proc/${pid}/cmdline`, 'utf8') : '';
      if (!cmdline.includes(name)) continue;
      log(`stopping the ${name} (pid ${pid}) the package started (the tests run their own)`);
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        /* already gone */
      }
    }
  }
}

/** Throws MissingToolError when a tool is missing and cannot be installed here. */
export function ensureTools(log: (m: string) => void, tools: readonly Tool[] = TEST_TOOLS): void {
  const missing = tools.filter((t) => !answers(t.command, t.versionArgs));
  if (missing.length === 0) return;
  const names = missing.map((t) => t.command).join(', ');
  const packages = [...new Set(missing.map((t) => t.aptPackage))];
  const isRoot = process.getuid?.() === 0;
  if (!isRoot || !answers('apt-get')) {
    throw new MissingToolError(
      `${names} not found on PATH; the tests need them (Prometheus rule checks, the dashboard, /ui, TLS proxy and Kerberos tests). ` +
        `Install them: on Debian/Ubuntu \`sudo apt-get install ${packages.join(' ')}\`; elsewhere put promtool and prometheus ` +
        '(2.x or 3.x, https://prometheus.io/download/) on PATH.',
    );
  }
  log(`${names} missing: installing ${packages.join(' ')} with apt-get`);
  run('apt-get', ['update'], log);
  run('apt-get', ['install', '-y', '--no-install-recommends', ...packages], log);
  stopPackagedDaemons(log);
  const still = missing.filter((t) => !answers(t.command, t.versionArgs));
  if (still.length > 0) throw new MissingToolError(`${still.map((t) => t.command).join(', ')} still not found after installing ${packages.join(' ')}`);
}

/** Whether the optional `kerberos` package loads in this Node (the one that runs the tests). */
function kerberosLoads(): boolean {
  return spawnSync(process.execPath, ['-e', "require('kerberos')"], { cwd: projectRoot, stdio: 'ignore' }).status === 0;
}

/**
 * Headers of the running Node for node-gyp, so that it downloads nothing. The `node` package brings
 * them (node_modules/node/node_modules/node-<os>-<arch>/include/node), but any later `npm install`
 * prunes that folder (its preinstall put it there, the lockfile does not list it): a copy in the
 * stack's cache outlives that.
 */
function nodeHeadersDir(): string | undefined {
  const gypi = (dir: string): string => join(dir, 'include', 'node', 'common.gypi');
  const fromPackage = join(projectRoot, 'node_modules', 'node', 'node_modules', `node-${process.platform}-${process.arch}`);
  const cached = join(stackLayout().cacheDir, `node-headers-${process.version}`);
  if (!existsSync(gypi(cached)) && existsSync(gypi(fromPackage))) cpSync(join(fromPackage, 'include'), join(cached, 'include'), { recursive: true });
  return existsSync(gypi(cached)) ? cached : undefined;
}

/**
 * The optional `kerberos` package (SPNEGO to the REST gateway) must load for the tests. npm ci leaves it
 * out, silently, on a machine that had no libkrb5-dev at the time; ensureTools has installed that by
 * now, so build it: `npm rebuild kerberos` when its files are there, else the locked version with
 * `npm install --no-save` (package.json and the lockfile stay as they are). node-gyp is pointed at the
 * running Node's headers (nodeHeadersDir).
 */
export function ensureKerberosClient(log: (m: string) => void): void {
  if (kerberosLoads()) return;
  const pkg = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { optionalDependencies?: Record<string, string> };
  const version = pkg.optionalDependencies?.['kerberos'];
  if (version === undefined) throw new MissingToolError('package.json names no optional dependency kerberos');
  const nodeDir = nodeHeadersDir();
  const env = nodeDir === undefined ? {} : { npm_config_nodedir: nodeDir };
  log('the optional kerberos package (SPNEGO) is missing or does not load (npm ci had no libkrb5-dev): building it');
  const args = existsSync(join(projectRoot, 'node_modules', 'kerberos', 'package.json'))
    ? ['rebuild', 'kerberos']
    : ['install', '--no-save', '--no-audit', '--no-fund', `kerberos@${version}`];
  run('npm', args, log, env);
  if (!kerberosLoads())
    throw new MissingToolError(`the kerberos package still does not load after npm ${args.join(' ')}; it needs libkrb5-dev, python3, make and g++`);
}
