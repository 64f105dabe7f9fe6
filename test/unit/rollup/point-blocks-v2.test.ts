// Point blocks version 2 (docs/DECISIONS.md#point-blocks): the test vectors of the specification,
// exact round trips of every kind of run (special doubles, window edges, 1 and 100,000 points), every
// form the mode byte names written by some run, version 1 cells still read, malformed cells refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { MAX_BLOCK_POINTS, decodePointsBlock, encodePointsBlock, pointsInBlock, type PointRun } from '../../../src/rollup/points-block.ts';
import { SummaryDecodeError } from '../../../src/rollup/summary.ts';
import { prng } from './brute.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** 2026-01-01T00:00:00Z, the window start of every vector */
const W = Date.UTC(2026, 0, 1);

/** The vectors of docs/DECISIONS.md#point-blocks: a 1h window from W, the run, its version 2 bytes (and version 1's where given). */
const VECTORS: readonly { name: string; run: PointRun; v2: string; v1?: string }[] = [
  { name: 'one point', run: { ts: [W + 1500], values: [21.5] }, v2: '020124dc0b01ae03', v1: '0101dc0b4035800000000000' },
  {
    name: 'a minute series, constant',
    run: { ts: Array.from({ length: 60 }, (_, i) => W + i * 60_000), values: Array.from({ length: 60 }, () => 1) },
    v2: '023c14e0d403003b0200',
  },
  {
    name: 'doubles',
    run: { ts: [W, W + 1], values: [0.1 + 0.2, -0] },
    v2: '0202000100013fd33333333333348000000000000000',
    v1: '010200013fd33333333333348000000000000000',
  },
  { name: 'a counter', run: { ts: [1, 2, 3, 4, 5].map((i) => W + i * 10_000), values: [100, 250, 420, 600, 770] }, v2: '02050c904e010003c801ac02281413' },
  {
    name: 'growing steps, a steady fall',
    run: { ts: [0, 1, 3, 6, 10, 15].map((s) => W + s * 1000), values: [-1.5, -1.25, -1, -0.75, -0.5, -0.25] },
    v2: '02065be80700000200ab023200',
  },
  {
    name: 'a gauge near 1000',
    run: { ts: Array.from({ length: 8 }, (_, i) => W + (i + 1) * 60_000), values: [1000.01, 1000.03, 999.98, 1000.05, 999.95, 1000, 1000.02, 999.99] },
    v2: '020854e0d403010006b69a0c04683a0574',
  },
];

const hex = (s: string): Buffer => Buffer.from(s, 'hex');
const same = (a: readonly number[], b: readonly number[]): boolean => a.length === b.length && a.every((x, i) => Object.is(x, b[i]));

void test('the test vectors: each run encodes to its bytes, and its bytes (version 1 too) decode to it; the specification lists them', () => {
  const spec = readFileSync(new URL('../../../docs/DECISIONS.md', import.meta.url), 'utf8').replace(/\s+/g, '');
  for (const v of VECTORS) {
    assert.equal(encodePointsBlock(W, v.run).toString('hex'), v.v2, v.name);
    for (const bytes of [v.v2, v.v1]) {
      if (bytes === undefined) continue;
      const back = decodePointsBlock(hex(bytes), W, HOUR);
      assert.ok(same(back.ts, v.run.ts) && same(back.values, v.run.values), `${v.name}: ${bytes}`);
      assert.equal(pointsInBlock(hex(bytes)), v.run.ts.length);
      assert.ok(spec.includes(bytes), `${v.name}: docs/DECISIONS.md lists ${bytes}`);
    }
    if (v.v1 !== undefined) assert.equal(encodePointsBlock(W, v.run, 1).toString('hex'), v.v1, `${v.name}, version 1`);
  }
});

const SPECIAL = [
  NaN,
  Infinity,
  -Infinity,
  -0,
  0,
  5e-324,
  2.2250738585072014e-308,
  Number.MAX_VALUE,
  -Number.MAX_VALUE,
  1e-300,
  2 ** 53,
  2 ** 49,
  -(2 ** 49),
  2 ** 49 + 1,
  0.1 + 0.2,
];

type Gen = (rand: () => number, n: number) => number[];
/** times as offsets from the window start, ascending and distinct, below the window's length */
const TIMES: Record<string, (rand: () => number, n: number, windowMs: number) => number[]> = {
  'every minute': (_r, n) => Array.from({ length: n }, (_, i) => i * 60_000),
  'every 10 s, a gap': (_r, n) => Array.from({ length: n }, (_, i) => 5_000 + (i + (i > n / 2 ? 30 : 0)) * 10_000),
  'ms jitter': (r, n) => Array.from({ length: n }, (_, i) => i * 10_000 + Math.floor(r() * 50)),
  'random ms': (r, n, w) => [...new Set(Array.from({ length: n }, () => Math.floor(r() * w)))].sort((a, b) => a - b),
  'growing steps': (_r, n) => Array.from({ length: n }, (_, i) => ((i * (i + 1)) / 2) * 1000),
  'window edges': (_r, n, w) => (n === 1 ? [w - 1] : [0, ...Array.from({ length: n - 2 }, (_, i) => (i + 1) * 7), w - 1]),
};
const VALUES: Record<string, Gen> = {
  '2 decimals': (r, n) => Array.from({ length: n }, () => Math.round(r() * 10_000) / 100),
  'a walk': (r, n) => {
    let v = 20;
    return Array.from({ length: n }, () => (v = Math.round((v + r() - 0.5) * 100) / 100));
  },
  counter: (r, n) => {
    let v = 2 ** 40;
    return Array.from({ length: n }, () => (v += Math.floor(r() * 50_000)));
  },
  'steady rise': (_r, n) => Array.from({ length: n }, (_, i) => -500 + i * 3),
  constant: (_r, n) => Array.from({ length: n }, () => 42),
  accelerating: (_r, n) => Array.from({ length: n }, (_, i) => (i * i) / 4),
  'negative 7 decimals': (r, n) => Array.from({ length: n }, () => -Math.round(r() * 1e9) / 1e7),
  '8 decimals': (r, n) => Array.from({ length: n }, () => Math.round(r() * 1e9) / 1e8),
  'random doubles': (r, n) => Array.from({ length: n }, () => (r() - 0.5) * 10 ** (r() * 40 - 20)),
  'special doubles': (r, n) => Array.from({ length: n }, () => SPECIAL[Math.floor(r() * SPECIAL.length)] as number),
  'subnormals and huge': (r, n) => Array.from({ length: n }, (_, i) => (i % 2 === 0 ? 5e-324 * Math.ceil(r() * 1000) : 1e300 * r())),
};

/** The column forms a block's mode byte names (docs/DECISIONS.md#point-blocks). */
function formsOf(block: Buffer): { times: string; values: string } {
  let at = 1;
  while ((block[at] as number) >= 0x80) at++;
  const mode = block[at + 1] as number;
  const coding = (mode >> 2) & 3;
  return {
    times: `${mode & 1 ? 'dod' : 'steps'}${mode & 2 ? ' frame' : ' runs'}`,
    values: coding === 0 ? 'doubles' : `order ${coding - 1}${mode & 0x10 ? ' frame' : ' runs'}`,
  };
}

void test('every run round-trips exactly, and every form of both columns is written by some run', () => {
  const rand = prng(38);
  const seen = new Set<string>();
  for (const [timeName, times] of Object.entries(TIMES)) {
    for (const [valueName, values] of Object.entries(VALUES)) {
      for (const [windowStart, windowMs] of [
        [W, HOUR],
        [W, DAY],
      ] as const) {
        for (const n of [1, 2, 3, 5, 17, 60, 400]) {
          const offsets = times(rand, n, windowMs).filter((o) => o < windowMs);
          const run = { ts: offsets.map((o) => windowStart + o), values: values(rand, offsets.length) };
          if (run.ts.length === 0) continue;
          const block = encodePointsBlock(windowStart, run);
          const back = decodePointsBlock(block, windowStart, windowMs);
          const what = `${timeName} × ${valueName}, ${run.ts.length} points in ${windowMs} ms`;
          assert.ok(same(back.ts, run.ts), `${what}: times`);
          assert.ok(same(back.values, run.values), `${what}: values`);
          assert.equal(pointsInBlock(block), run.ts.length);
          assert.ok(
            block.length <= encodePointsBlock(windowStart, run, 1).length + 8,
            `${what}: ${block.length} bytes, version 1 ${encodePointsBlock(windowStart, run, 1).length}`,
          );
          const f = formsOf(block);
          seen.add(`times ${f.times}`).add(`values ${f.values}`);
        }
      }
    }
  }
  const all = [
    ...['steps runs', 'steps frame', 'dod runs', 'dod frame'].map((f) => `times ${f}`),
    'values doubles',
    ...[0, 1, 2].flatMap((o) => [`values order ${o} runs`, `values order ${o} frame`]),
  ];
  assert.deepEqual([...seen].sort(), all.sort());
});

void test('100,000 points in a day: a few bytes a point, read back exactly; more than a block holds is refused both ways', () => {
  const rand = prng(5);
  const n = 100_000;
  const run = { ts: Array.from({ length: n }, (_, i) => W + i * 864), values: Array.from({ length: n }, () => Math.round(rand() * 10_000) / 100) };
  const block = encodePointsBlock(W, run);
  assert.ok(block.length < 2 * n, `${block.length} bytes`);
  const back = decodePointsBlock(block, W, DAY);
  assert.ok(same(back.ts, run.ts) && same(back.values, run.values));
  const over = MAX_BLOCK_POINTS + 1;
  assert.throws(
    () => encodePointsBlock(W, { ts: Array.from({ length: over }, (_, i) => W + i), values: new Array<number>(over).fill(0) }),
    /at most 1000000 points/,
  );
  // a count past the bound, with a run of zeros that would make it cheap to write
  assert.throws(
    () => decodePointsBlock(hex('02c1843d000100'), W, DAY),
    (e) => e instanceof SummaryDecodeError && /1000001 points are more than a block holds/.test(e.message),
  );
});

void test('version 1 cells, as the job wrote them before, are still read (and version 2 is written now)', () => {
  const rand = prng(9);
  for (let round = 0; round < 30; round++) {
    const n = 1 + Math.floor(rand() * 200);
    const ts = [...new Set(Array.from({ length: n }, () => W + Math.floor(rand() * HOUR)))].sort((a, b) => a - b);
    const run = { ts, values: ts.map(() => (round % 2 === 0 ? Math.round(rand() * 100) : rand() * 1e9)) };
    const v1 = encodePointsBlock(W, run, 1);
    assert.equal(v1[0], 1);
    const back = decodePointsBlock(v1, W, HOUR);
    assert.ok(same(back.ts, run.ts) && same(back.values, run.values));
    assert.equal(pointsInBlock(v1), ts.length);
    assert.equal(encodePointsBlock(W, run)[0], 2);
  }
});

void test('malformed version 2 cells are refused with a SummaryDecodeError naming what is wrong', () => {
  const refused = (bytes: Buffer | string, why: RegExp, windowMs = HOUR): void => {
    const b = typeof bytes === 'string' ? hex(bytes) : bytes;
    assert.throws(
      () => decodePointsBlock(b, W, windowMs, 'point block temp'),
      (e) => e instanceof SummaryDecodeError && e.message.startsWith('point block temp: ') && why.test(e.message),
      `${b.toString('hex')} ${String(why)}`,
    );
  };
  for (const v of VECTORS) {
    const good = hex(v.v2);
    for (let cut = 0; cut < good.length; cut++) refused(good.subarray(0, cut), /./);
    refused(Buffer.concat([good, Buffer.from([0])]), /past the values|value bytes/);
  }
  refused('03010000', /version 3 is neither 1 nor 2/);
  refused('0200', /holds no point/);
  refused('0201200100' + '0000000000000000', /gives doubles a frame or decimals/);
  refused('0201100100' + '0000000000000000', /gives doubles a frame or decimals/);
  refused('020100000000', /time unit is 0/);
  refused('02020001000500', /a run of 6 zeros passes the end of its column/);
  refused('02020201000219', /a frame of 25 bits is wider than 24/);
  refused('02020201000201', /a frame of 1 × 1 bits runs past the end/);
  refused('0202020100020101', /padding bits are not 0/);
  refused('0203010105092700', /the ts at 2 does not ascend/);
  refused('02010001050000', /ts .* is past the window's end/, 5);
  refused('0201040100008080808080808010', /past ±2\^49/);
  refused('02010001000000000000000000', /7 value bytes for 1 doubles/);
});
