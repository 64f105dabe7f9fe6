import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../../src/runtime/config.ts';

function file(content: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
  const p = join(dir, 'c.json');
  writeFileSync(p, content);
  return p;
}

test('defaults come from the schema', () => {
  const cfg = loadConfig();
  assert.equal(cfg.keys.saltBuckets, 16);
  assert.equal(cfg.tables.data.family, 'd');
  assert.deepEqual(cfg.kafka.brokers, ['127.0.0.1:9092']);
});

test('file, then env, then flags: later sources win', () => {
  const path = file(JSON.stringify({ keys: { saltBuckets: 8 }, kafka: { topic: 'from-file' } }));
  const cfg = loadConfig({
    file: path,
    env: { TSI_SALT_BUCKETS: '32', TSI_KAFKA_BROKERS: 'a:1, b:2' },
    sets: ['keys.saltBuckets=64'],
  });
  assert.equal(cfg.keys.saltBuckets, 64);
  assert.equal(cfg.kafka.topic, 'from-file');
  assert.deepEqual(cfg.kafka.brokers, ['a:1', 'b:2']);
});

test('errors name the bad key', () => {
  assert.throws(
    () => loadConfig({ sets: ['keys.saltBuckets=300'] }),
    (e: unknown) => e instanceof ConfigError && /keys\.saltBuckets/.test(e.message),
  );
  assert.throws(() => loadConfig({ env: { TSI_KAFKA_BROKERS: 'nohostport' } }), /kafka\.brokers\.0/);
  assert.throws(() => loadConfig({ sets: ['kafka.nope=1'] }), /kafka.*nope|Unrecognized/);
  assert.throws(() => loadConfig({ sets: ['tables.data.family=longname'] }), /tables\.data\.family/);
});

test('the service doctor: every 10 minutes, 5 rows per region; 0 turns it off, a shorter period than 1 s is refused', () => {
  assert.deepEqual(loadConfig({ env: {} }).doctor, { everyMs: 600_000, sampleRows: 5 });
  assert.equal(loadConfig({ env: {}, sets: ['doctor.everyMs=0'] }).doctor.everyMs, 0);
  assert.throws(
    () => loadConfig({ env: {}, sets: ['doctor.everyMs=500'] }),
    (e: unknown) => e instanceof ConfigError && /doctor\.everyMs/.test(e.message) && /0 \(off\) or at least 1000/.test(e.message),
  );
});

test('unreadable or invalid files are reported with their path', () => {
  assert.throws(() => loadConfig({ file: '/nonexistent/x.json' }), /\/nonexistent\/x\.json/);
  const bad = file('{not json');
  assert.throws(() => loadConfig({ file: bad }), new RegExp(`${bad.replace(/[/.]/g, '\\$&')} is not valid JSON`));
});

test('retry bounds are checked against each other', () => {
  assert.throws(() => loadConfig({ sets: ['hbase.retryBaseMs=10000', 'hbase.retryMaxMs=100'] }), /retryBaseMs/);
});
