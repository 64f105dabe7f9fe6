import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateEvents } from '../../../src/demo/generate.ts';
import { eventLimitsFor, parseEvent, resolveFieldMapping } from '../../../src/events/index.ts';
import { DEFAULT_BUCKETS, saltOf, spreadOffset } from '../../../src/keys/index.ts';
import { computeSkew } from '../../../src/load/region-writes.ts';
import { loadConfig } from '../../../src/runtime/config.ts';
import { candidateGrid, candidateName, type Candidate } from '../../../src/whatif/layouts.ts';
import { predict, predictAll, regionsFromSplits, steadyPromotions, type SampleEvent } from '../../../src/whatif/predict.ts';
import { firstByTime, linesOf, sampleOf, topIdsOf } from '../../../src/whatif/sample.ts';

const POLICY = { minShare: 0.003, kFactor: 64, maxK: null };
const sample: SampleEvent[] = [...generateEvents({ count: 20_000, ids: 500, startTs: 1_700_000_000_000, stepMs: 1, seed: 3, racks: 10 })];
const salted = (o: Partial<Extract<Candidate, { kind: 'salted' }>> = {}): Candidate => ({
  kind: 'salted',
  buckets: 16,
  format: 'binary',
  spread: false,
  indexSaltMode: 'entry',
  ...o,
});
const opts = { indexTags: ['site', 'rack'], policy: POLICY };

void test('spread off: rows per region are the MD5 salt buckets of the ids, counted by brute force', () => {
  for (const format of ['binary', 'printable'] as const) {
    const p = predict(salted({ format }), sample, opts);
    const brute = Array.from({ length: 16 }, () => 0);
    for (const e of sample) brute[saltOf(e.id, 16)] = (brute[saltOf(e.id, 16)] ?? 0) + 1;
    assert.deepEqual(p.data.perRegion, brute, format);
    assert.equal(p.data.skew, computeSkew(brute));
    assert.equal(p.data.rows, sample.length);
    assert.equal(p.index?.rows, 2 * sample.length, 'one index row per indexed tag');
    assert.deepEqual(p.idReadScans, { mean: 1, max: 1 });
    assert.equal(p.tagReadScans, 16, 'entry salting reads every bucket');
    assert.equal(p.spreadIds.length, 0);
  }
  const binary = predict(salted(), sample, opts);
  const printable = predict(salted({ format: 'printable' }), sample, opts);
  assert.ok(printable.data.avgKeyBytes > binary.data.avgKeyBytes, 'printable keys are longer (hex salt, decimal time)');
});

void test('spread on: the ids the service would promote, each event in bucket salt(id) + j(ts, K), and a flatter spread', () => {
  const off = predict(salted(), sample, opts);
  const on = predict(salted({ spread: true }), sample, opts);
  const counts = new Map<string, number>();
  for (const e of sample) counts.set(e.id, (counts.get(e.id) ?? 0) + 1);
  const promoted = steadyPromotions(counts, sample.length, 16, POLICY);
  assert.deepEqual(on.spreadIds, promoted);
  assert.ok(promoted.length > 0 && promoted[0]?.id === 'sensor-00000' && promoted[0].k === 16);
  const k = new Map(promoted.map((x) => [x.id, x.k]));
  const brute = Array.from({ length: 16 }, () => 0);
  for (const e of sample) {
    const b = (saltOf(e.id, 16) + spreadOffset(e.ts, k.get(e.id) ?? 1)) % 16;
    brute[b] = (brute[b] ?? 0) + 1;
  }
  assert.deepEqual(on.data.perRegion, brute);
  assert.ok(on.data.skew < 1.3 && off.data.skew > 2, `on ${on.data.skew}, off ${off.data.skew}`);
  assert.equal(on.idReadScans.max, 16);
  assert.ok(on.idReadScans.mean > 1);
  assert.equal(
    predict(salted({ spread: true, indexSaltMode: 'value' }), sample, opts).tagReadScans,
    16,
    'value salting reads every bucket once an id is spread',
  );
  assert.equal(predict(salted({ indexSaltMode: 'value' }), sample, opts).tagReadScans, 1);
});

void test('maxK caps K; an id below minShare is never promoted', () => {
  const counts = new Map([
    ['hot', 900],
    ['cold', 1],
  ]);
  assert.deepEqual(
    steadyPromotions(counts, 1000, 16, { ...POLICY, maxK: 4 }).map((p) => [p.id, p.k]),
    [['hot', 4]],
  );
  assert.deepEqual(steadyPromotions(counts, 1000, 16, { ...POLICY, maxK: 1 }), []);
});

void test('unsalted: regions split at the sample ids’ quantiles, every row placed, one scan per read', () => {
  const p = predict({ kind: 'unsalted', regions: 8 }, sample, opts);
  assert.equal(p.data.regions, 8);
  assert.equal(
    p.data.perRegion.reduce((a, b) => a + b, 0),
    sample.length,
  );
  assert.equal(p.tagReadScans, 1);
  assert.ok(p.data.skew > 3, `the Zipf ids sort together: ${p.data.skew}`);
  assert.ok((p.index?.regions ?? 0) <= 8);
});

void test('regions from split points cover the key space without gaps', () => {
  const r = regionsFromSplits([Buffer.from([4]), Buffer.from([8])]);
  assert.deepEqual(
    r.map((x) => [x.startKey.toString('hex'), x.endKey.toString('hex')]),
    [
      ['', '04'],
      ['04', '08'],
      ['08', ''],
    ],
  );
});

void test('the grid: the current layout first, every combination once, unsalted per B', () => {
  const current = salted({ spread: true });
  const grid = candidateGrid({ buckets: [8, 16], formats: ['binary'], spread: [false, true], indexSaltModes: ['entry', 'value'], unsalted: true }, current);
  assert.equal(candidateName(grid[0] as Candidate), 'B16 binary spread on index entry');
  assert.equal(grid.length, 2 * 2 * 2 + 2);
  assert.equal(new Set(grid.map(candidateName)).size, grid.length);
  assert.throws(() => candidateGrid({ buckets: [0], formats: ['binary'], spread: [false], indexSaltModes: ['entry'], unsalted: false }, current), /buckets/);
  assert.equal(predictAll(grid.slice(0, 3), sample, opts).length, 3);
});

void test('a sample is parsed as the service parses it: bad lines are counted and left out', () => {
  const cfg = loadConfig({ env: {}, sets: [] });
  const parse = (raw: Uint8Array): ReturnType<typeof parseEvent> => parseEvent(raw, resolveFieldMapping(cfg.events.mapping), eventLimitsFor(cfg.events)());
  const text =
    '{"id":"a","ts":1700000000000,"metric":"m","value":1}\n\n{"id":"b","ts":1,\r\n{"id":"a","ts":1700000000001,"metric":"m","value":2}\r\n{"id":"c","ts":1700000000002,"metric":"m","value":3}\n';
  const s = sampleOf(linesOf(text), parse);
  assert.equal(s.events.length, 3);
  assert.equal(s.rejected, 1);
  assert.equal(sampleOf(linesOf(text), parse, 2).events.length, 2, '--max');
  assert.deepEqual(topIdsOf(s.events, 1), [['a', 2]]);
  assert.equal(DEFAULT_BUCKETS, cfg.keys.saltBuckets);
});

void test('a topic sample is the first records by time over all partitions', () => {
  const v = (s: string): Uint8Array => Buffer.from(s);
  const got = firstByTime(
    [
      { ts: 5, partition: 0, offset: 0, value: v('a') },
      { ts: 1, partition: 1, offset: 0, value: v('b') },
      { ts: 5, partition: 1, offset: 1, value: v('c') },
      { ts: 9, partition: 0, offset: 1, value: v('d') },
    ],
    3,
  );
  assert.deepEqual(
    got.map((x) => Buffer.from(x).toString()),
    ['b', 'a', 'c'],
  );
});
