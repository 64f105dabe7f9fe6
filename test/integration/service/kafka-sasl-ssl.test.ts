// The service and `tsingest produce` against a real Kafka broker (the local stack's Kafka jars, KRaft)
// with a SASL_SSL listener: TLS with a test CA and SCRAM credentials from a file for the consumer, the
// DLQ producer and the lag monitor; OAUTHBEARER with a token printed by a command for the CLI. A wrong
// password is a start-up error naming kafka.sasl, never a retry loop that looks healthy. The test's
// own producer and admin use the broker's plaintext listener.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { uniqueName } from '../../support/env.ts';
import { startSecureKafka, unsecuredJwt } from '../../support/secure-kafka.ts';
import { makeTestCerts } from '../../support/tls.ts';
import {
  NODE_BIN,
  REPO_ROOT,
  countDataCells,
  createHarness,
  makeEvents,
  offsets,
  produceEvents,
  produceRaw,
  readDlq,
  readyzStatus,
  startInProcess,
  waitForCommittedAtEnd,
  waitForEvents,
} from '../../support/service-harness.ts';

const run = promisify(execFile);

void test('SASL_SSL Kafka: SCRAM over TLS for the service (consume, DLQ, lag), OAUTHBEARER for tsingest produce; a wrong password is a start-up error naming kafka.sasl', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tsi-ksasl-'));
  t.after(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const certs = makeTestCerts(join(dir, 'certs'));
  const password = randomBytes(12).toString('base64url');
  const broker = await startSecureKafka({ dir: join(dir, 'kafka'), certs, scramUsers: [{ user: 'ingest', password }] });
  t.after(() => broker.stop());
  const h = await createHarness(t, { prefix: 'ksasl', brokers: broker.plainBroker });
  const passwordFile = join(dir, 'kafka-password');
  writeFileSync(passwordFile, `${password}\n`);
  const secured = (pwFile: string, mechanism = 'scram-sha-512'): string[] => [
    `kafka.brokers=${broker.saslSslBroker}`,
    'kafka.tls.enabled=true',
    `kafka.tls.caFile=${certs.caFile}`,
    `kafka.sasl.mechanism=${mechanism}`,
    'kafka.sasl.username=ingest',
    `kafka.sasl.passwordFile=${pwFile}`,
  ];

  await t.test('a wrong password: the service does not start, names kafka.sasl, commits nothing', async () => {
    const wrong = join(dir, 'wrong-password');
    writeFileSync(wrong, 'not-the-password');
    const group = uniqueName('it-ksasl-bad');
    const t0 = Date.now();
    await assert.rejects(startInProcess(h, [`kafka.groupId=${group}`, 'http.port=0', ...secured(wrong)]), (e: unknown) => {
      const m = e instanceof Error ? e.message : String(e);
      assert.match(m, /Kafka refused the SASL scram-sha-512 credentials: check kafka\.sasl\.username \(ingest\) and kafka\.sasl\.password/, m);
      assert.ok(!m.includes('not-the-password'));
      return true;
    });
    t.diagnostic(`refused after ${Date.now() - t0} ms`);
    const committed = Object.values((await offsets(h, group)).committed);
    assert.ok(
      committed.every((o) => o === -1n),
      `no offset committed: ${committed.join(',')}`,
    );
  });

  await t.test('SCRAM over TLS: every event written once, the bad one dead-lettered over SASL_SSL, offsets committed, ready', async () => {
    const events = makeEvents(400);
    const group = uniqueName('it-ksasl-g');
    await produceEvents(h, events);
    await produceRaw(h, [{ key: 'bad', value: '{"id":"x"}' }]);
    const svc = await startInProcess(h, [`kafka.groupId=${group}`, 'http.port=0', ...secured(passwordFile)]);
    await waitForEvents(svc, events.length);
    await waitForCommittedAtEnd(h, group);
    assert.equal(await countDataCells(h), events.length);
    const [dlq] = await readDlq(h, 1);
    assert.equal(dlq?.value?.toString('utf8'), '{"id":"x"}');
    assert.equal(await readyzStatus(svc.httpPort), 200, `ready (the lag monitor's admin polls over SASL_SSL): ${svc.lifecycle.reason}`);
    await svc.stop('test');
  });

  await t.test('tsingest produce with an OAUTHBEARER token printed by a command', async () => {
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, unsecuredJwt('ingest'));
    const file = join(dir, 'events.jsonl');
    writeFileSync(
      file,
      makeEvents(5, { idPrefix: 'oauth' })
        .map((e) => JSON.stringify(e))
        .join('\n'),
    );
    const before = Object.values((await offsets(h, uniqueName('none'))).end).reduce((a, b) => a + b, 0n);
    const sets = [
      ...h.baseSets,
      `kafka.brokers=${broker.saslSslBroker}`,
      'kafka.tls.enabled=true',
      `kafka.tls.caFile=${certs.caFile}`,
      'kafka.sasl.mechanism=oauthbearer',
      `kafka.sasl.oauthTokenCommand=${JSON.stringify(['cat', tokenFile])}`,
    ].flatMap((s) => ['--set', s]);
    const { stdout } = await run(NODE_BIN, ['src/cli.ts', 'produce', '--file', file, ...sets], { cwd: REPO_ROOT, env: process.env });
    assert.match(stdout, /produced 5 event\(s\)/);
    const after = Object.values((await offsets(h, uniqueName('none'))).end).reduce((a, b) => a + b, 0n);
    assert.equal(after - before, 5n);
  });
});
