// Kafka security settings: config checks naming the key, kafkajs's ssl/sasl options built from them
// (files read, an OAUTHBEARER token from its file or command at every authentication), and start-up
// failures explained by the setting to check.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { loadConfig } from '../../../src/runtime/config.ts';
import { assertRefused, tempFiles } from '../../support/config-files.ts';
import { explainKafkaFailure, kafkaSasl, kafkaTls, tokenFromCommand } from '../../../src/service/kafka-security.ts';

const { file } = tempFiles('tsi-ksec-');
const refused = assertRefused;

void test('config: half-set or contradictory Kafka security settings are errors naming the key', () => {
  refused(['kafka.tls.caFile=/ca.pem'], /kafka\.tls\.caFile is set but kafka\.tls\.enabled is false/);
  refused(['kafka.tls.enabled=true', 'kafka.tls.keyFile=/k.pem'], /kafka\.tls\.certFile and kafka\.tls\.keyFile go together/);
  refused(['kafka.sasl.mechanism=scram-sha-512', 'kafka.sasl.password=x'], /kafka\.sasl\.username is required/);
  refused(['kafka.sasl.mechanism=plain', 'kafka.sasl.username=u'], /exactly one of kafka\.sasl\.password and kafka\.sasl\.passwordFile/);
  refused(['kafka.sasl.mechanism=oauthbearer'], /exactly one of kafka\.sasl\.oauthTokenFile and kafka\.sasl\.oauthTokenCommand/);
  refused(['kafka.sasl.username=u'], /kafka\.sasl\.username is set but kafka\.sasl\.mechanism is none/);
  refused(
    ['kafka.sasl.mechanism=oauthbearer', 'kafka.sasl.oauthTokenFile=/t', 'kafka.sasl.password=x'],
    /kafka\.sasl\.password is set but kafka\.sasl\.mechanism is oauthbearer/,
  );
  refused(['kafka.sasl.mechanism=gssapi'], /kafka\.sasl\.mechanism/);
  const cfg = loadConfig({ env: { TSI_KAFKA_USERNAME: 'ingest', TSI_KAFKA_PASSWORD: '000123' }, sets: ['kafka.sasl.mechanism=scram-sha-256'] });
  assert.equal(cfg.kafka.sasl.password, '000123', 'a password of digits from the environment stays a string');
});

void test('ssl from the PEM files, verification always on; none unless enabled', () => {
  const cfg = loadConfig({
    env: {},
    sets: [
      'kafka.tls.enabled=true',
      `kafka.tls.caFile=${file('ca.pem', 'CA\n')}`,
      `kafka.tls.certFile=${file('c.pem', 'C')}`,
      `kafka.tls.keyFile=${file('k.pem', 'K')}`,
      'kafka.tls.serverName=broker-1',
    ],
  });
  assert.deepEqual(kafkaTls(cfg.kafka), { rejectUnauthorized: true, ca: ['CA'], cert: 'C', key: 'K', servername: 'broker-1' });
  assert.deepEqual(kafkaTls(loadConfig({ env: {}, sets: ['kafka.tls.enabled=true'] }).kafka), { rejectUnauthorized: true });
  assert.equal(kafkaTls(loadConfig({ env: {} }).kafka), undefined);
});

void test('sasl: scram from a password file; oauthbearer from a file or a command, at every authentication', async () => {
  const scram = loadConfig({
    env: {},
    sets: ['kafka.sasl.mechanism=scram-sha-512', 'kafka.sasl.username=ingest', `kafka.sasl.passwordFile=${file('pw', 's3cret\n')}`],
  });
  assert.deepEqual(kafkaSasl(scram.kafka), { mechanism: 'scram-sha-512', username: 'ingest', password: 's3cret' });
  assert.equal(kafkaSasl(loadConfig({ env: {} }).kafka), undefined);

  const tokenPath = file('token', 'tok-1\n');
  const fromFile = kafkaSasl(loadConfig({ env: {}, sets: ['kafka.sasl.mechanism=oauthbearer', `kafka.sasl.oauthTokenFile=${tokenPath}`] }).kafka);
  assert.ok(fromFile?.mechanism === 'oauthbearer');
  assert.deepEqual(await fromFile.oauthBearerProvider(), { value: 'tok-1' });
  writeFileSync(tokenPath, 'tok-2');
  assert.deepEqual(await fromFile.oauthBearerProvider(), { value: 'tok-2' }, 'read again at the next authentication');

  const fromCommand = kafkaSasl(
    loadConfig({ env: {}, sets: ['kafka.sasl.mechanism=oauthbearer', 'kafka.sasl.oauthTokenCommand=["sh","-c","echo tok-cmd"]'] }).kafka,
  );
  assert.ok(fromCommand?.mechanism === 'oauthbearer');
  assert.deepEqual(await fromCommand.oauthBearerProvider(), { value: 'tok-cmd' });
  await assert.rejects(tokenFromCommand(['sh', '-c', 'exit 3']), /kafka\.sasl\.oauthTokenCommand \(sh\) failed/);
  await assert.rejects(tokenFromCommand(['sh', '-c', 'true']), /printed no token/);
});

void test('start-up failures name the setting: refused SASL credentials, a TLS mismatch; others are left alone', () => {
  const cfg = loadConfig({
    env: {},
    sets: ['kafka.tls.enabled=true', 'kafka.sasl.mechanism=scram-sha-256', 'kafka.sasl.username=ingest', 'kafka.sasl.password=wrong-pw'],
  });
  const sasl = Object.assign(new Error('SASL SCRAM SHA256 authentication failed: Invalid username or password'), { name: 'KafkaJSSASLAuthenticationError' });
  const why = explainKafkaFailure(cfg.kafka, sasl) ?? '';
  assert.match(why, /Kafka refused the SASL scram-sha-256 credentials: check kafka\.sasl\.username \(ingest\) and kafka\.sasl\.password/);
  assert.ok(!why.includes('wrong-pw'));
  const tls = Object.assign(new Error('Connection error: self-signed certificate in certificate chain'), { name: 'KafkaJSConnectionError' });
  assert.match(explainKafkaFailure(cfg.kafka, tls) ?? '', /TLS to the Kafka brokers failed: check kafka\.tls/);
  assert.equal(explainKafkaFailure(cfg.kafka, new Error('Connection timeout')), undefined);
});

void test('TLS/plaintext mismatches name kafka.tls, as kafkajs words them', () => {
  const tlsOn = loadConfig({ env: {}, sets: ['kafka.tls.enabled=true'] }).kafka;
  const plain = loadConfig({ env: {} }).kafka;
  // a TLS client against a PLAINTEXT listener
  const early = Object.assign(new Error('Connection error: Client network socket disconnected before secure TLS connection was established'), {
    name: 'KafkaJSConnectionError',
  });
  assert.match(explainKafkaFailure(tlsOn, early) ?? '', /kafka\.tls\.enabled is true but the listener does not speak TLS/);
  // a plaintext client against an SSL / SASL_SSL listener
  const closed = Object.assign(new Error('Closed connection'), { name: 'KafkaJSConnectionClosedError' });
  assert.match(explainKafkaFailure(plain, closed) ?? '', /set kafka\.tls\.enabled \(now false\)/);
  const wrapped = Object.assign(new Error('Connection error'), { name: 'KafkaJSNonRetriableError', cause: closed });
  assert.match(explainKafkaFailure(plain, wrapped) ?? '', /kafka\.tls/);
  assert.equal(explainKafkaFailure(tlsOn, closed), undefined, 'with TLS on, a closed connection is something else');
});
