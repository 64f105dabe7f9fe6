// test/support/secure-kafka.ts against itself: a real Kafka 3.9 broker (the local stack's jars) with a
// SASL_SSL listener, reached with kafkajs directly. SCRAM-SHA-256 over TLS with the test CA creates a
// topic, produces and consumes; SCRAM-SHA-512, PLAIN and OAUTHBEARER (unsecured alg-none JWT) are
// accepted; a wrong SCRAM password is refused at once with KafkaJSSASLAuthenticationError; a client
// that does not trust the test CA fails on the certificate. A second broker requires a client
// certificate (mTLS): SCRAM with the test client certificate works, without one it does not.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel, type KafkaConfig, type SASLOptions } from 'kafkajs';
import { uniqueName } from '../../support/env.ts';
import { startSecureKafka, unsecuredJwt, type SecureKafka } from '../../support/secure-kafka.ts';
import { makeTestCerts, type TestCerts } from '../../support/tls.ts';

const dir = mkdtempSync(join(tmpdir(), 'tsi-skafka-'));
const certs: TestCerts = makeTestCerts(join(dir, 'certs'));
const scram = { user: 'ingest', password: randomBytes(12).toString('base64url') };
const plain = { user: 'plainuser', password: randomBytes(12).toString('base64url') };
let broker: SecureKafka | undefined;
let startedInMs = 0;

before(async () => {
  const t0 = Date.now();
  broker = await startSecureKafka({ dir: join(dir, 'broker'), certs, scramUsers: [scram], plainUsers: [plain] });
  startedInMs = Date.now() - t0;
});
after(async () => {
  await broker?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const sasl = (): string => {
  if (broker === undefined) throw new Error('the broker did not start');
  return broker.saslSslBroker;
};
const trustTestCa = { ca: [readFileSync(certs.caFile, 'utf8')], rejectUnauthorized: true };

function client(brokerAddress: string, saslOptions: SASLOptions | undefined, ssl: NonNullable<KafkaConfig['ssl']>, fast = false): Kafka {
  return new Kafka({
    clientId: 'it-secure-kafka',
    brokers: [brokerAddress],
    ssl,
    ...(saslOptions === undefined ? {} : { sasl: saslOptions }),
    logLevel: logLevel.NOTHING,
    connectionTimeout: 3000,
    ...(fast ? { retry: { retries: 0 } } : {}),
  });
}

async function listTopics(kafka: Kafka): Promise<string[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    return await admin.listTopics();
  } finally {
    await admin.disconnect();
  }
}

/** The error's message and those of its causes (kafkajs wraps connection errors). */
function messages(err: unknown): string {
  const out: string[] = [];
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) out.push(`${e.name}: ${e.message}`);
  return out.join(' <- ');
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  assert.fail('expected a rejection');
}

void test('SCRAM-SHA-256 over TLS with the test CA: create + list topics, produce, consume on the SASL_SSL listener', async (t) => {
  t.diagnostic(`broker started in ${startedInMs} ms`);
  const kafka = client(sasl(), { mechanism: 'scram-sha-256', username: scram.user, password: scram.password }, trustTestCa);
  const topic = uniqueName('it-skafka');
  const admin = kafka.admin();
  await admin.connect();
  try {
    assert.equal(await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] }), true);
    assert.ok((await admin.listTopics()).includes(topic));
  } finally {
    await admin.disconnect();
  }

  const value = `hello-${randomBytes(4).toString('hex')}`;
  const producer = kafka.producer();
  await producer.connect();
  try {
    await producer.send({ topic, messages: [{ key: 'k', value }] });
  } finally {
    await producer.disconnect();
  }

  const consumer = kafka.consumer({ groupId: uniqueName('it-skafka-g') });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    let timer: NodeJS.Timeout | undefined;
    const received = await Promise.race([
      new Promise<string>((resolve, reject) => {
        consumer
          .run({
            eachMessage: ({ message }) => {
              resolve(message.value?.toString() ?? '');
              return Promise.resolve();
            },
          })
          .catch(reject);
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          reject(new Error('no message consumed within 30 s'));
        }, 30_000);
      }),
    ]).finally(() => {
      clearTimeout(timer);
    });
    assert.equal(received, value);
  } finally {
    await consumer.disconnect();
  }
});

void test('SCRAM-SHA-512 and PLAIN over TLS: listTopics', async () => {
  assert.ok(Array.isArray(await listTopics(client(sasl(), { mechanism: 'scram-sha-512', username: scram.user, password: scram.password }, trustTestCa))));
  assert.ok(Array.isArray(await listTopics(client(sasl(), { mechanism: 'plain', username: plain.user, password: plain.password }, trustTestCa))));
});

void test('OAUTHBEARER with an unsecured JWT: listTopics', async () => {
  const kafka = client(sasl(), { mechanism: 'oauthbearer', oauthBearerProvider: () => Promise.resolve({ value: unsecuredJwt(scram.user) }) }, trustTestCa);
  assert.ok(Array.isArray(await listTopics(kafka)));
});

void test('a wrong SCRAM password is refused at once with KafkaJSSASLAuthenticationError', async () => {
  const admin = client(sasl(), { mechanism: 'scram-sha-256', username: scram.user, password: `${scram.password}-wrong` }, trustTestCa).admin();
  const t0 = Date.now();
  const err = await rejection(admin.connect());
  const took = Date.now() - t0;
  await admin.disconnect();
  assert.ok(err instanceof Error);
  assert.equal(err.name, 'KafkaJSSASLAuthenticationError', messages(err));
  assert.ok(took < 10_000, `refused after ${took} ms`);
});

void test('a client that does not trust the test CA fails on the certificate', async () => {
  const admin = client(sasl(), { mechanism: 'scram-sha-256', username: scram.user, password: scram.password }, true, true).admin();
  const t0 = Date.now();
  const err = await rejection(admin.connect());
  const took = Date.now() - t0;
  await admin.disconnect();
  assert.match(messages(err), /self.signed|certificate/i);
  assert.ok(took < 10_000, `failed after ${took} ms`);
});

void test('requireClientCert: SCRAM with the test client certificate works; without a client certificate it fails', async (t) => {
  const t0 = Date.now();
  const mtls = await startSecureKafka({ dir: join(dir, 'broker-mtls'), certs, scramUsers: [scram], requireClientCert: true });
  t.after(() => mtls.stop());
  t.diagnostic(`mTLS broker started in ${Date.now() - t0} ms`);
  const auth: SASLOptions = { mechanism: 'scram-sha-512', username: scram.user, password: scram.password };
  const withCert = { ...trustTestCa, cert: readFileSync(certs.clientCertFile, 'utf8'), key: readFileSync(certs.clientKeyFile, 'utf8') };
  assert.ok(Array.isArray(await listTopics(client(mtls.saslSslBroker, auth, withCert))));

  const admin = client(mtls.saslSslBroker, auth, trustTestCa, true).admin();
  const err = await rejection(admin.connect());
  await admin.disconnect();
  t.diagnostic(`without a client certificate: ${messages(err)}`);
  assert.match(messages(err), /certificate/i); // TLS 1.3: the broker's alert 42 "bad certificate" after the handshake
});
