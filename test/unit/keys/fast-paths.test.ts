// The allocation-free fast paths of the write path agree with their plain definitions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { encodeTags } from '../../../src/events/cells.ts';
import { reverseTs, writeReverseTs, writeReverseTsAt } from '../../../src/keys/key-bytes.ts';
import { SALT_MEMO_SIZE, md5Bucket, memoBucket, saltOf } from '../../../src/keys/salt.ts';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

// ASCII, Latin-1, BMP above the surrogates (U+E000–U+FFFF) and astral code points: the cases where
// UTF-16 order and UTF-8 byte order differ.
const POOL = ['a', 'b', 'Z', 'é', '\u00ff', '\u4e2d', '\ue000', '\uffff', '\u{1f600}', '\u{10000}', '\u{10ffff}'];

function randomText(r: () => number): string {
  let out = '';
  const n = 1 + Math.floor(r() * 4);
  for (let i = 0; i < n; i++) out += POOL[Math.floor(r() * POOL.length)] ?? 'a';
  return out;
}

void test('encodeTags orders keys by their UTF-8 bytes, astral and high-BMP characters included', () => {
  const r = rng(7);
  for (let round = 0; round < 500; round++) {
    const tags: Record<string, string> = {};
    for (let i = 0; i < 5; i++) tags[randomText(r)] = randomText(r);
    const byBytes = Object.keys(tags).sort((a, b) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));
    const expected = `{${byBytes.map((k) => `${JSON.stringify(k)}:${JSON.stringify(tags[k])}`).join(',')}}`;
    assert.equal(encodeTags(tags).toString('utf8'), expected);
  }
});

void test('writeReverseTsAt equals the BigInt reverse ts for edge and random timestamps', () => {
  const r = rng(11);
  const edges = [0, 1, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 1, Date.UTC(2026, 10, 22), Number.MAX_SAFE_INTEGER];
  for (const ts of [...edges, ...Array.from({ length: 1000 }, () => Math.floor(r() * Number.MAX_SAFE_INTEGER))]) {
    const buf = Buffer.alloc(11, 0xee);
    assert.equal(writeReverseTsAt(buf, 2, ts), 10);
    assert.equal(buf.readBigUInt64BE(2), reverseTs(ts), `ts ${ts}`);
    assert.equal(buf[0], 0xee);
    assert.equal(buf[10], 0xee, 'nothing written past the 8 bytes');
    assert.ok(writeReverseTs(ts).equals(buf.subarray(2, 10)));
  }
});

void test('memoised salts equal MD5 salts, across bucket counts and past the memo bound', () => {
  const md5Salt = (text: string, b: number): number => createHash('md5').update(Buffer.from(text, 'utf8')).digest().readUInt32BE(0) % b;
  const r = rng(3);
  for (let i = 0; i < SALT_MEMO_SIZE + 500; i++) {
    const id = i % 7 === 0 ? randomText(r) : `dev-${i}`;
    const b = i % 3 === 0 ? 16 : 251;
    const expected = md5Salt(id, b);
    assert.equal(memoBucket(id, b), expected);
    assert.equal(saltOf(id, b), expected);
    assert.equal(saltOf(Buffer.from(id, 'utf8'), b), expected);
    assert.equal(md5Bucket(id, b), expected);
  }
});
