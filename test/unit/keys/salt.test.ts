import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { KeyError, md5Bucket, saltOf } from '../../../src/keys/index.ts';

void test('saltOf matches the DESIGN.md vectors (B = 16)', () => {
  assert.equal(saltOf('sensor-0042', 16), 9);
  assert.equal(saltOf('dev-1', 16), 10);
  assert.equal(saltOf('设备-7', 16), 0);
});

void test('saltOf hashes a string as its UTF-8 bytes; Buffer and string agree', () => {
  assert.equal(saltOf(Buffer.from('设备-7', 'utf8'), 16), saltOf('设备-7', 16));
  const digest = createHash('md5').update(Buffer.from('sensor-0042', 'utf8')).digest();
  assert.equal(saltOf('sensor-0042', 256), digest.readUInt32BE(0) % 256);
  assert.equal(saltOf('sensor-0042', 7), digest.readUInt32BE(0) % 7);
});

void test('saltOf is always 0 with one bucket and stays below B', () => {
  for (let i = 0; i < 200; i++) {
    assert.equal(saltOf(`id-${i}`, 1), 0);
    const salt = saltOf(`id-${i}`, 13);
    assert.ok(salt >= 0 && salt < 13);
  }
});

void test('saltOf rejects buckets outside 1–256 or non-integers with a KeyError (INVALID_BUCKETS) naming buckets', () => {
  for (const bad of [0, -1, 257, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
    assert.throws(
      () => saltOf('x', bad),
      (error: unknown) => error instanceof KeyError && error.code === 'INVALID_BUCKETS' && !error.retriable && error.message.includes('buckets'),
    );
  }
  assert.throws(() => md5Bucket(Buffer.from('x'), 0), /buckets/);
});
