import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  EMPTY_ENTRY,
  KeyError,
  bucketSince,
  decodeEntry,
  encodeEntry,
  epochAt,
  kAt,
  maxK,
  spreadOffset,
  withEpoch,
  withFence,
  type SpreadEntry,
} from '../../../src/keys/index.ts';

/** j(ts, K) computed independently: MD5 of the 8-byte big-endian ts via BigInt. */
function referenceOffset(ts: number, k: number): number {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(BigInt(ts));
  return createHash('md5').update(b).digest().readUInt32BE(0) % k;
}

const E: SpreadEntry = {
  epochs: [
    { since: 1000, k: 2 },
    { since: 5000, k: 8 },
  ],
  fence: null,
};

void test('j(ts, K) is MD5 of int64_BE(ts) mod K, 0 for K = 1, for any ts up to 2^53 − 1', () => {
  for (const ts of [0, 1, 255, 256, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 1, 1_732_262_400_000, Number.MAX_SAFE_INTEGER]) {
    assert.equal(spreadOffset(ts, 1), 0);
    for (const k of [2, 3, 7, 16, 256]) assert.equal(spreadOffset(ts, k), referenceOffset(ts, k), `ts ${ts} K ${k}`);
  }
});

void test('j spreads consecutive timestamps evenly over K buckets', () => {
  const counts = new Array<number>(8).fill(0);
  for (let ts = 1_732_262_400_000; ts < 1_732_262_400_000 + 80_000; ts++) counts[spreadOffset(ts, 8)] = (counts[spreadOffset(ts, 8)] ?? 0) + 1;
  for (const c of counts) assert.ok(Math.abs(c - 10_000) < 400, `bucket count ${c} far from 10,000`);
  // Events every second (ts mod K would put them all in one bucket) still spread.
  const secondly = new Set(Array.from({ length: 64 }, (_, i) => spreadOffset(1_732_262_400_000 + i * 1000, 4)));
  assert.equal(secondly.size, 4);
});

void test('K of the epoch containing ts; the first ts each bucket offset is used from', () => {
  assert.equal(kAt(undefined, 0), 1);
  assert.equal(kAt(E, 999), 1);
  assert.equal(kAt(E, 1000), 2);
  assert.equal(kAt(E, 4999), 2);
  assert.equal(kAt(E, 5000), 8);
  assert.equal(kAt(E, Number.MAX_SAFE_INTEGER), 8);
  assert.deepEqual(epochAt(E, 1500), { since: 1000, k: 2 });
  assert.equal(epochAt(E, 10), null);
  assert.equal(maxK(E), 8);
  assert.equal(maxK(undefined), 1);
  assert.equal(bucketSince(E, 0), 0);
  assert.equal(bucketSince(E, 1), 1000);
  assert.equal(bucketSince(E, 2), 5000);
  assert.equal(bucketSince(E, 7), 5000);
  assert.equal(bucketSince(E, 8), null);
});

void test('an epoch is appended only with a larger K, after the last epoch and after the fence', () => {
  const one = withEpoch(undefined, { since: 100, k: 4 }, 16);
  assert.deepEqual(one, { epochs: [{ since: 100, k: 4 }], fence: null });
  assert.deepEqual(
    withEpoch(one, { since: 200, k: 16 }, 16).epochs.map((e) => e.k),
    [4, 16],
  );
  assert.throws(() => withEpoch(one, { since: 200, k: 4 }, 16), /K never shrinks: the id already spreads over 4 buckets, asked for 4/);
  assert.throws(() => withEpoch(one, { since: 200, k: 2 }, 16), /K never shrinks/);
  assert.throws(() => withEpoch(one, { since: 100, k: 8 }, 16), /ascending since/);
  assert.throws(() => withEpoch(one, { since: 200, k: 32 }, 16), /2 … 16/);
  assert.throws(() => withEpoch(undefined, { since: 200, k: 1 }, 16), /K never shrinks/);
  const fenced = withFence(one, 900);
  assert.throws(() => withEpoch(fenced, { since: 900, k: 8 }, 16), /not after the fence 900/);
  assert.equal(withEpoch(fenced, { since: 901, k: 8 }, 16).fence, 900);
});

void test('a fence only rises', () => {
  const f = withFence(undefined, 50);
  assert.deepEqual(f, { epochs: [], fence: 50 });
  assert.equal(withFence(f, 40), f, 'a lower ts leaves the entry as it is');
  assert.equal(withFence(f, 60).fence, 60);
});

void test('registry cell: compact JSON that round-trips; malformed cells are KeyErrors', () => {
  const entry: SpreadEntry = {
    epochs: [
      { since: 1_732_262_460_000, k: 4 },
      { since: 1_732_262_520_000, k: 16 },
    ],
    fence: 1_732_262_400_000,
  };
  const bytes = encodeEntry(entry);
  assert.equal(bytes.toString('utf8'), '{"v":1,"epochs":[[1732262460000,4],[1732262520000,16]],"fence":1732262400000}');
  assert.deepEqual(decodeEntry(bytes, 16), entry);
  assert.deepEqual(decodeEntry(encodeEntry(EMPTY_ENTRY), 16), EMPTY_ENTRY);
  for (const bad of [
    'nope',
    '{"v":2,"epochs":[],"fence":null}',
    '{"v":1,"epochs":[[1,1]],"fence":null}',
    '{"v":1,"epochs":[[5,4],[5,8]],"fence":null}',
    '{"v":1,"epochs":[[5,8],[6,4]],"fence":null}',
    '{"v":1,"epochs":[[5]],"fence":null}',
    '{"v":1,"epochs":[],"fence":"x"}',
  ]) {
    assert.throws(() => decodeEntry(Buffer.from(bad), 16), KeyError, bad);
  }
  assert.throws(() => decodeEntry(bytes, 8), /2 … 8/, 'K above B is refused');
});
