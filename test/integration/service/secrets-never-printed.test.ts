// Secrets are never printed. One setup: a real SASL_SSL Kafka broker (SCRAM) and Debian's nginx in
// front of the REST gateway (TLS, Basic auth, a required client certificate whose key is encrypted).
// The real service runs as `tsingest run` at debug level (kafkajs's own debug records included) with the Kafka password from the
// environment and the HBase password and key passphrase from files; then `tables check` and
// `produce` run with the other sources, and commands fail on a wrong Kafka password, a wrong HBase
// password, a Bearer token the proxy refuses and a wrong key passphrase. Every secret string (and
// its base64 forms, as in a Basic header) is looked for in everything these print or serve: logs,
// /metrics, /healthz, /readyz, /ui, /ui/data.json, the read API, the CLI output and errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testEnv, uniqueName } from '../../support/env.ts';
import { startNginxProxy } from '../../support/nginx.ts';
import { startSecureKafka } from '../../support/secure-kafka.ts';
import { makeTestCerts } from '../../support/tls.ts';
import { NODE_BIN, REPO_ROOT, createHarness, freePort, makeEvents, produceEvents, produceRaw, scrapeEvents, waitFor } from '../../support/service-harness.ts';

interface Run {
  readonly code: number | null;
  readonly out: string;
}

/** `node src/cli.ts …` to completion (or until `until` resolves, then SIGTERM), all of stdout and stderr. */
function cli(args: readonly string[], env: Readonly<Record<string, string>>, until?: (out: () => string) => Promise<void>): Promise<Run> {
  const child = spawn(NODE_BIN, ['src/cli.ts', ...args], { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (b: Buffer) => {
    out += b.toString();
  });
  child.stderr.on('data', (b: Buffer) => {
    out += b.toString();
  });
  const exited = new Promise<Run>((resolve) => {
    child.once('close', (code) => {
      resolve({ code, out });
    });
  });
  if (until === undefined) return exited;
  return until(() => out).then(
    () => {
      child.kill('SIGTERM');
      return exited;
    },
    (err: unknown) => {
      child.kill('SIGKILL');
      return exited.then((r) => {
        throw new Error(`${String(err)}\n${r.out.slice(-4000)}`);
      });
    },
  );
}

/** A secret and the forms it can leak in: as is, base64 and base64url of it and of `user:secret` (a Basic header). */
function forms(secret: string, user = 'ingest'): string[] {
  const b = (s: string): string[] => [Buffer.from(s).toString('base64').replace(/=+$/, ''), Buffer.from(s).toString('base64url')];
  return [secret, ...b(secret), ...b(`${user}:${secret}`)];
}

// kafkajs filters its own debug records before they reach the service's logger unless this is set.
const KAFKAJS_DEBUG = { KAFKAJS_LOG_LEVEL: 'debug' };

const secret = (what: string): string => `${what}-${randomBytes(9).toString('hex')}`;

void test('secrets never printed: service logs at debug, /metrics, /ui, the read API, tables check, produce, and refused-credential errors', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tsi-nosec-'));
  t.after(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const certs = makeTestCerts(join(dir, 'certs'));
  const s = {
    kafkaPassword: secret('KafkaPw'),
    hbasePassword: secret('HBasePw'),
    passphrase: secret('KeyPass'),
    token: secret('BearerTok'),
    wrongKafka: secret('WrongKafkaPw'),
    wrongHBase: secret('WrongHBasePw'),
    wrongPassphrase: secret('WrongKeyPass'),
  };
  const file = (name: string, text: string): string => {
    const p = join(dir, name);
    writeFileSync(p, `${text}\n`, { mode: 0o600 });
    return p;
  };
  // The client key, encrypted with the passphrase (nginx requires the client certificate).
  const encKey = join(dir, 'client-enc.key');
  await new Promise<void>((resolve, reject) => {
    const p = spawn('openssl', ['pkey', '-in', certs.clientKeyFile, '-aes256', '-passout', `file:${file('pp-for-openssl', s.passphrase)}`, '-out', encKey], {
      stdio: 'ignore',
    });
    p.once('close', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`openssl pkey exit ${String(code)}`));
    });
  });

  const [broker, proxy] = await Promise.all([
    startSecureKafka({ dir: join(dir, 'kafka'), certs, scramUsers: [{ user: 'ingest', password: s.kafkaPassword }] }),
    startNginxProxy({
      upstream: testEnv().restUrl,
      certs,
      dir: join(dir, 'nginx'),
      basicAuth: { user: 'ingest', password: s.hbasePassword },
      requireClientCert: true,
    }),
  ]);
  t.after(() => Promise.all([broker.stop(), proxy.stop()]).then(() => undefined));
  const h = await createHarness(t, { prefix: 'nosec', brokers: broker.plainBroker });

  const kafkaSets = [
    `kafka.brokers=${broker.saslSslBroker}`,
    'kafka.tls.enabled=true',
    `kafka.tls.caFile=${certs.caFile}`,
    'kafka.sasl.mechanism=scram-sha-512',
    'kafka.sasl.username=ingest',
  ];
  const hbaseTls = (passphraseFile: string): string[] => [
    `hbase.restUrl=${proxy.url}`,
    `hbase.tls.caFile=${certs.caFile}`,
    `hbase.tls.certFile=${certs.clientCertFile}`,
    `hbase.tls.keyFile=${encKey}`,
    `hbase.tls.keyPassphraseFile=${passphraseFile}`,
  ];
  const basic = ['hbase.auth.type=basic', 'hbase.auth.username=ingest'];
  const args = (cmd: readonly string[], sets: readonly string[]): string[] => [
    ...cmd,
    ...[...h.baseSets, 'log.level=debug', ...sets].flatMap((x) => ['--set', x]),
  ];
  const passphraseFile = file('key-passphrase', s.passphrase);
  const printed: { what: string; text: string }[] = [];
  const keep = (what: string, text: string): void => {
    printed.push({ what, text });
  };

  await t.test('the service at debug: Kafka password from the environment, HBase password and key passphrase from files', async () => {
    const port = await freePort();
    const events = makeEvents(200);
    await produceEvents(h, events);
    await produceRaw(h, [{ key: 'bad', value: '{"id":"x"}' }]); // the DLQ producer authenticates too
    const sets = [
      ...kafkaSets,
      ...hbaseTls(passphraseFile),
      ...basic,
      `hbase.auth.passwordFile=${file('hbase-password', s.hbasePassword)}`,
      `kafka.groupId=${uniqueName('it-nosec-g')}`,
      `http.port=${port}`,
    ];
    const base = `http://127.0.0.1:${port}`;
    const id = events[0]?.id ?? '';
    const run = await cli(args(['run'], sets), { TSI_KAFKA_PASSWORD: s.kafkaPassword, ...KAFKAJS_DEBUG }, async () => {
      await waitFor('every event written or dead-lettered', 90_000, async () => ((await scrapeEvents(port)) ?? 0) >= events.length + 1, 500);
      await waitFor('/ui has a snapshot', 30_000, async () => (await fetch(`${base}/ui/data.json`)).status === 200, 500);
      for (const path of [
        '/metrics',
        '/healthz',
        '/readyz',
        '/ui',
        '/ui/',
        '/ui/data.json',
        '/nope',
        `/api/v1/ids/${id}/latest?limit=3`,
        `/api/v1/ids/${id}/events?metric=temp&from=0`,
        '/api/v1/index/site/s0/events?limit=3',
        `/api/v1/ids/${id}/rollups/1h`,
        `/api/v1/latest?id=${id}`,
        `/api/v1/ids/${id}/latest?limit=nope`,
        '/api/v1/index/nope/x/events',
      ]) {
        const res = await fetch(`${base}${path}`, { redirect: 'manual' });
        keep(`GET ${path} (${res.status})`, `${JSON.stringify([...res.headers])}\n${await res.text()}`);
      }
    });
    keep('tsingest run (debug log)', run.out);
    assert.equal(run.code, 0, run.out.slice(-3000));
    assert.match(run.out, /"level":"debug"/, 'the log really is at debug level');
    assert.match(run.out, /"component":"kafkajs"[^\n]*"level":"debug"|"level":"debug"[^\n]*"component":"kafkajs"/, 'kafkajs logs at debug too');
    assert.match(run.out, /drain complete/);
  });

  await t.test('tables check (HBase password from the environment) and produce (Kafka password from a file)', async () => {
    const events = join(dir, 'events.jsonl');
    writeFileSync(
      events,
      makeEvents(3, { idPrefix: 'nosec' })
        .map((e) => JSON.stringify(e))
        .join('\n'),
    );
    const [check, produce] = await Promise.all([
      cli(args(['tables', 'check'], [...hbaseTls(passphraseFile), ...basic]), { TSI_HBASE_PASSWORD: s.hbasePassword }),
      cli(args(['produce', '--file', events], [...kafkaSets, `kafka.sasl.passwordFile=${file('kafka-password', s.kafkaPassword)}`]), {}),
    ]);
    keep('tables check', check.out);
    keep('produce', produce.out);
    assert.equal(check.code, 0, check.out);
    assert.match(check.out, /tables match the configuration/);
    assert.equal(produce.code, 0, produce.out);
    assert.match(produce.out, /produced 3 event/);
  });

  await t.test('refused credentials: each command fails naming the setting, without the secret', async () => {
    const hbaseOk = [...hbaseTls(passphraseFile), ...basic, `hbase.auth.passwordFile=${file('hbase-password-2', s.hbasePassword)}`];
    const [kafkaRefused, hbaseRefused, bearerRefused, badPassphrase] = await Promise.all([
      cli(args(['run'], [...kafkaSets, ...hbaseOk, `kafka.groupId=${uniqueName('it-nosec-bad')}`, 'http.port=0']), {
        TSI_KAFKA_PASSWORD: s.wrongKafka,
        ...KAFKAJS_DEBUG,
      }),
      cli(args(['tables', 'check'], [...hbaseTls(passphraseFile), ...basic, `hbase.auth.passwordFile=${file('wrong-hbase-password', s.wrongHBase)}`]), {}),
      cli(args(['tables', 'check'], [...hbaseTls(passphraseFile), 'hbase.auth.type=bearer']), { TSI_HBASE_TOKEN: s.token }),
      cli(args(['tables', 'check'], [...hbaseTls(file('wrong-passphrase', s.wrongPassphrase)), ...basic]), { TSI_HBASE_PASSWORD: s.hbasePassword }),
    ]);
    for (const [what, r, named] of [
      ['run, wrong Kafka password', kafkaRefused, /kafka\.sasl/],
      ['tables check, wrong HBase password', hbaseRefused, /hbase\.auth/],
      ['tables check, refused Bearer token', bearerRefused, /hbase\.auth/],
      ['tables check, wrong key passphrase', badPassphrase, /hbase\.tls\.keyPassphraseFile/],
    ] as const) {
      keep(what, r.out);
      // `run` refuses to start with the configuration error's code (3); the tools exit 1.
      assert.equal(r.code, what.startsWith('run') ? 3 : 1, `${what}: ${r.out.slice(-3000)}`);
      assert.match(r.out, named, `${what}: ${r.out.slice(-3000)}`);
    }
  });

  await t.test('no secret in any of it', (tt) => {
    tt.diagnostic(`looked at ${printed.length} outputs, ${printed.reduce((n, p) => n + p.text.length, 0)} characters`);
    const all = Object.entries(s).flatMap(([name, value]) => forms(value).map((f) => ({ name, f })));
    const leaks = printed.flatMap((p) => all.filter(({ f }) => p.text.includes(f)).map(({ name, f }) => `${name} (${f}) in ${p.what}`));
    assert.deepEqual(leaks, [], leaks.join('\n'));
    assert.ok(printed.length >= 20, `looked at ${printed.length} outputs`);
  });
});
