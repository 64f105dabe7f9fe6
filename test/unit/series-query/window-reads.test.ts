// The series API's reads of what the rollup job stored (docs/SERIES-API.md, "The planner"): raw
// points from point blocks where windows are summarised for good, summaries from summary packs, the
// data table for the rest — always the answer the data table alone gives. The job and the reads run
// on one in-memory HBase; the reference is the same query with blocks off (raw path: the data
// table) or rollups off (every point from the data table).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NO_SPREAD } from '../../../src/keys/index.ts';
import { fixedSpread } from '../../../src/series-store/index.ts';
import { SeriesIndex } from '../../../src/catalog/series-index.ts';
import { putRowOf } from '../../../src/rollup/fold.ts';
import { RollupJob } from '../../../src/rollup/job.ts';
import { markerPuts } from '../../../src/rollup/marker.ts';
import { encodeSummary, summaryOf } from '../../../src/rollup/summary.ts';
import type { ReadCounts, SubQueryAnswer } from '../../../src/series-query/execute.ts';
import type { RollupTier } from '../../../src/series-query/plan.ts';
import { SeriesStore } from '../../../src/series-store/series-store.ts';
import { cachedReads, WindowCache } from '../../../src/series-store/window-cache.ts';
import { AnswerMemo } from '../../../src/series-query/answer-memo.ts';
import { FakeHBase } from '../../support/fake-hbase.ts';
import { BLOCK_FAMILY, prng, type Ev } from '../rollup/brute.ts';
import { markEvents, readMetrics, settings, silentLog, writeEvents } from '../rollup/job-fixture.ts';
import { runQuery } from './query-fixture.ts';

const H = 3_600_000;
const D = 24 * H;
const DAY0 = Date.UTC(2024, 10, 21);
const NOW = DAY0 + 6 * D;
const IDS = ['a', 'b', 'c', 'd', 'e'];
const S = settings(['1h', '1d']);
const TIER: RollupTier = { windowsMs: [H, D], graceMs: 0, ttlMsByWindow: new Map(), rawTtlMs: null, blocksTtlMs: null, blocks: true };

function events(): Ev[] {
  const rand = prng(3);
  const out: Ev[] = [];
  for (let i = 0; i < 1500; i++) {
    const id = IDS[Math.floor(rand() * rand() * IDS.length)] as string;
    out.push({ id, ts: DAY0 + Math.floor(rand() * 3 * D), metric: rand() < 0.5 ? 'temp' : 'hum', value: Math.round(rand() * 1000) / 10 });
  }
  // a quiet id with one point a day, and points on window edges
  for (let d = 0; d < 3; d++) out.push({ id: 'quiet', ts: DAY0 + d * D + 7 * H, metric: 'temp', value: d });
  out.push({ id: 'a', ts: DAY0 + D, metric: 'temp', value: -1 }, { id: 'a', ts: DAY0 + D - 1, metric: 'temp', value: -2 });
  return out;
}

async function stored(): Promise<{ store: FakeHBase; catalog: SeriesIndex }> {
  const store = new FakeHBase();
  const evs = events();
  await writeEvents(store, S, evs);
  await markEvents(store, S, evs);
  const report = await new RollupJob({ store, settings: S, metrics: readMetrics(S).metrics, log: silentLog, now: () => NOW }).run();
  assert.equal(report.ok, true);
  const catalog = new SeriesIndex({ idTagKey: 'id' });
  for (const e of evs) catalog.add({ metric: e.metric, id: e.id, tags: {} });
  return { store, catalog };
}

function seriesStore(store: FakeHBase, blocks: boolean): SeriesStore {
  return new SeriesStore(store, {
    keyspace: S.keyspace,
    data: { name: S.dataTable, family: 'd' },
    rollup: { name: S.rollupTable, family: S.rollupFamily },
    meta: S.meta,
    spread: fixedSpread(NO_SPREAD),
    deadlineMs: 10_000,
    idTagKey: 'id',
    blockFamily: blocks ? BLOCK_FAMILY : null,
  });
}

async function ask(store: FakeHBase, catalog: SeriesIndex, tier: RollupTier | undefined, body: Record<string, unknown>): Promise<SubQueryAnswer[]> {
  return runQuery(body, { catalog, reads: seriesStore(store, tier?.blocks === true), tier, now: NOW });
}

const rawQuery = (aggregator: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  start: DAY0 + 3 * H + 5,
  end: DAY0 + 2 * D + 5 * H,
  msResolution: true,
  queries: [{ aggregator, metric: 'temp', filters: [{ type: 'wildcard', tagk: 'id', filter: '*', groupBy: true }], ...extra }],
});

/** Raw answers with blocks = the same with blocks off (every point from the data table). */
async function sameAsDataTable(store: FakeHBase, catalog: SeriesIndex, body: Record<string, unknown>, what: string): Promise<SubQueryAnswer> {
  const [withBlocks] = await ask(store, catalog, TIER, body);
  const [plain] = await ask(store, catalog, { ...TIER, blocks: false }, body);
  assert.ok(withBlocks !== undefined && plain !== undefined);
  assert.deepEqual(withBlocks.results, plain.results, what);
  assert.ok(plain.results.length > 0 && plain.results.some((r) => r.dps.length > 0), `${what}: the reference has data`);
  assert.equal(withBlocks.reads.points, plain.reads.points, `${what}: the same points read`);
  return withBlocks;
}

void test('raw reads from point blocks (days, hours at the edges, the open end raw) = the data table alone', async () => {
  const { store, catalog } = await stored();
  const a = await sameAsDataTable(store, catalog, rawQuery('none'), 'every point of every id');
  // 6 ids; the scan range [DAY0 + 3h, DAY0 + 2d + 6h): hours 3–23 of day 0, day 1 whole, hours 0–5 of day 2
  assert.ok(a.reads.blockWindows > 0, 'blocks read');
  await sameAsDataTable(store, catalog, rawQuery('sum', { downsample: '30m-p95' }), 'a percentile downsample: raw points, from blocks');
  await sameAsDataTable(store, catalog, rawQuery('avg', { downsample: '0all-dev' }), '0all');
  await sameAsDataTable(store, catalog, { ...rawQuery('sum', { rate: true }), start: DAY0 + 1, end: NOW }, 'up to now');
});

void test('a late event (marked, not yet summarised) is read from the data table: its hour, not its day, leaves the blocks', async () => {
  const { store, catalog } = await stored();
  const late: Ev = { id: 'b', ts: DAY0 + D + 10 * H + 123, metric: 'temp', value: 999 };
  await writeEvents(store, S, [late]);
  await markEvents(store, S, [late]);
  const a = await sameAsDataTable(store, catalog, rawQuery('none'), 'with the late point');
  assert.ok(
    a.results.some((r) => r.dps.some(([ts, v]) => ts === late.ts && v === 999)),
    'the late point is in the answer',
  );
  // and once the job has run, the blocks hold it
  await new RollupJob({ store, settings: S, metrics: readMetrics(S).metrics, log: silentLog, now: () => NOW }).run();
  const after = await sameAsDataTable(store, catalog, rawQuery('none'), 'after the job');
  assert.ok(after.results.some((r) => r.dps.some(([ts]) => ts === late.ts)));
});

void test("a day with a pending day marker is read from its hours' blocks; a block older than its summary is not read", async () => {
  const { store, catalog } = await stored();
  const before = (await ask(store, catalog, TIER, rawQuery('none')))[0];
  await store.put(
    S.rollupTable,
    markerPuts([{ id: 'a', windowSec: 86_400, windowStart: DAY0 + D }], { keyspace: S.keyspace, family: S.rollupFamily, stamp: NOW }).map((p) =>
      putRowOf(p.row),
    ),
  );
  const marked = await sameAsDataTable(store, catalog, rawQuery('none'), 'day marked');
  assert.ok(marked.reads.blockWindows > (before?.reads.blockWindows ?? 0), 'more (hour) blocks instead of a day block');
  // a newer summary without a block (a recompute that wrote none) on day 1 of 'c' and on one hour of 'd'
  const newer = (id: string, windowSec: number, start: number): ReturnType<typeof putRowOf> =>
    putRowOf({
      key: S.keyspace.rollupKey({ id, windowSec, windowStart: start }),
      cells: [{ family: windowSec === 3600 ? 'r1h' : 'r1d', qualifier: Buffer.from('temp'), value: encodeSummary(summaryOf(start, 1)), timestamp: NOW + 1 }],
    });
  await store.put(S.rollupTable, [newer('c', 86_400, DAY0 + D), newer('d', 3600, DAY0 + 5 * H)]);
  await sameAsDataTable(store, catalog, rawQuery('none'), "blocks without their summary's timestamp are not read");
});

/** Rollup answers (packs, rows) = the same query with rollups off (every bucket from raw points). */
async function sameAsRaw(store: FakeHBase, catalog: SeriesIndex, body: Record<string, unknown>, what: string): Promise<SubQueryAnswer> {
  const [rollup] = await ask(store, catalog, TIER, body);
  return assertSameAsRaw({ store, catalog }, rollup, body, what);
}

/** `rollup`, the answer to `body`, = the same query with rollups off over the same stored data. */
async function assertSameAsRaw(
  data: { readonly store: FakeHBase; readonly catalog: SeriesIndex },
  rollup: SubQueryAnswer | undefined,
  body: Record<string, unknown>,
  what: string,
): Promise<SubQueryAnswer> {
  const { store, catalog } = data;
  const [raw] = await ask(store, catalog, undefined, body);
  assert.ok(rollup !== undefined && raw !== undefined);
  assert.equal(rollup.plan.path, 'rollup', what);
  assert.equal(rollup.results.length, raw.results.length, what);
  assert.ok(
    raw.results.some((r) => r.dps.length > 0),
    `${what}: the reference has data`,
  );
  rollup.results.forEach((r, i) => {
    const want = raw.results[i];
    assert.deepEqual(r.tags, want?.tags, what);
    assert.deepEqual(
      r.dps.map(([t]) => t),
      want?.dps.map(([t]) => t),
      `${what}: timestamps`,
    );
    r.dps.forEach(([, v], j) => {
      const w = want?.dps[j]?.[1] as number;
      assert.ok(Math.abs((v as number) - w) <= 1e-9 * Math.max(1, Math.abs(w)), `${what}: ${String(v)} vs ${w}`);
    });
  });
  return rollup;
}

void test("hourly summaries of whole days come from the day rows' packs; a stale or missing pack falls back to the hour rows", async () => {
  const { store, catalog } = await stored();
  const body = {
    start: DAY0,
    end: DAY0 + 3 * D - 1,
    queries: [{ aggregator: 'avg', metric: 'temp', downsample: '1h-avg', filters: [{ type: 'wildcard', tagk: 'id', filter: '*', groupBy: false }] }],
  };
  const a = await sameAsRaw(store, catalog, body, 'site-style 1h-avg over 3 days');
  assert.ok(a.reads.packWindows > 0, 'packs read');
  assert.equal(a.reads.rawBuckets, 0);
  const sum = await sameAsRaw(
    store,
    catalog,
    {
      ...body,
      queries: [{ ...body.queries[0], aggregator: 'sum', downsample: '2h-max', filters: [{ type: 'wildcard', tagk: 'id', filter: '*', groupBy: true }] }],
    },
    'per id 2h-max',
  );
  assert.ok(sum.reads.packWindows > 0);
  // day 1 of 'a' marked at the day size (an hour was recomputed since its pack): its hours' rows instead
  await store.put(
    S.rollupTable,
    markerPuts([{ id: 'a', windowSec: 86_400, windowStart: DAY0 + D }], { keyspace: S.keyspace, family: S.rollupFamily, stamp: NOW }).map((p) =>
      putRowOf(p.row),
    ),
  );
  const marked = await sameAsRaw(store, catalog, body, 'a day marked');
  assert.equal(marked.reads.packWindows, a.reads.packWindows - 1, 'one pack fewer');
});

/** One service's worth of series API state across queries: the window cache and the answer memo over the store. */
function cachedAsker(store: FakeHBase, catalog: SeriesIndex): (body: Record<string, unknown>) => Promise<SubQueryAnswer> {
  const inner = seriesStore(store, true);
  const cache = new WindowCache({ maxBytes: 1 << 24, maxAgeMs: 3_600_000, now: () => NOW });
  const reads = cachedReads(inner, cache, (id) => S.keyspace.baseSalt(id));
  const memo = { answers: new AnswerMemo<ReadCounts>(16, 3_600_000), probe: inner };
  return async (body) => {
    const [a] = await runQuery(body, { catalog, reads, memo, tier: TIER, now: NOW });
    assert.ok(a !== undefined);
    return a;
  };
}

void test("window cache and answer memo: repeated answers come from memory and stay equal to the raw answer through a late event and the job's rerun", async () => {
  const { store, catalog } = await stored();
  const cachedAsk = cachedAsker(store, catalog);
  const body = {
    start: DAY0,
    end: DAY0 + 3 * D - 1,
    queries: [{ aggregator: 'avg', metric: 'temp', downsample: '1h-avg', filters: [{ type: 'wildcard', tagk: 'id', filter: '*', groupBy: false }] }],
  };
  const first = await assertSameAsRaw({ store, catalog }, await cachedAsk(body), body, 'first read');
  assert.equal(first.memo, false);
  assert.equal(first.reads.cachedIds, 0, 'nothing kept yet');
  const again = await cachedAsk(body);
  assert.equal(again.memo, true, 'the same query again: the kept answer, after the probe');
  assert.deepEqual(again.results, first.results);
  // another aggregation of the same windows: computed, from the window cache
  const other = {
    ...body,
    queries: [{ ...body.queries[0], aggregator: 'sum', downsample: '1h-max', filters: [{ type: 'wildcard', tagk: 'id', filter: '*', groupBy: true }] }],
  };
  const otherFirst = await assertSameAsRaw({ store, catalog }, await cachedAsk(other), other, 'another aggregation');
  assert.equal(otherFirst.memo, false);
  assert.ok(otherFirst.reads.cachedIds > 0, `windows from the cache (${otherFirst.reads.cachedIds} ids)`);

  // a late event into a summarised hour of 'b': marked, not yet summarised → that bucket raw
  const late: Ev = { id: 'b', ts: DAY0 + D + 10 * H + 123, metric: 'temp', value: 999 };
  await writeEvents(store, S, [late]);
  await markEvents(store, S, [late]);
  const marked = await assertSameAsRaw({ store, catalog }, await cachedAsk(body), body, 'late event marked');
  assert.equal(marked.memo, false, 'a marker: the kept answer does not hold');
  assert.ok(marked.reads.rawBuckets > 0, 'the marked hour read raw');
  assert.notDeepEqual(marked.results, first.results, 'the late value moved the answer');
  const markedAgain = await cachedAsk(body);
  assert.equal(markedAgain.memo, false, 'nor while the marker is pending');

  // the job summarises the hour (and the day) again: its put and its bump; the marker goes
  const report = await new RollupJob({ store, settings: S, metrics: readMetrics(S).metrics, log: silentLog, now: () => NOW }).run();
  assert.ok(report.ok && report.written > 0);
  const resummarised = await assertSameAsRaw({ store, catalog }, await cachedAsk(body), body, 'after the job');
  assert.equal(resummarised.memo, false, "a bumped generation: the kept answer and 'b''s kept windows do not hold");
  assert.equal(resummarised.reads.rawBuckets, 0, 'summarised for good again');
  assert.ok(resummarised.reads.cachedIds < catalog.size, "'b''s bucket read again");
  assert.deepEqual(resummarised.results, marked.results, 'the new summaries hold the late value, as the raw read did');
  const kept = await cachedAsk(body);
  assert.equal(kept.memo, true);
  assert.deepEqual(kept.results, resummarised.results);
});

void test('0all from window summaries (days, hours, raw edges and the open end) = every point from the data table, per aggregator; a late event read raw', async () => {
  const { store, catalog } = await stored();
  const check = async (body: Record<string, unknown>, what: string): Promise<SubQueryAnswer> => {
    const [folded] = await ask(store, catalog, TIER, body);
    const [raw] = await ask(store, catalog, undefined, body);
    assert.ok(folded !== undefined && raw !== undefined);
    assert.ok(
      raw.results.some((r) => r.dps.length > 0),
      `${what}: the reference has data`,
    );
    assert.equal(folded.results.length, raw.results.length, what);
    folded.results.forEach((r, i) => {
      const want = raw.results[i];
      assert.deepEqual(r.tags, want?.tags, what);
      assert.deepEqual(
        r.dps.map(([t]) => t),
        want?.dps.map(([t]) => t),
        `${what}: timestamps`,
      );
      r.dps.forEach(([, v], j) => {
        const w = want?.dps[j]?.[1] as number;
        assert.ok(Math.abs((v as number) - w) <= 1e-9 * Math.max(1, Math.abs(w)), `${what}: ${String(v)} vs ${w}`);
      });
    });
    return folded;
  };
  for (const agg of ['avg', 'sum', 'count', 'min', 'max', 'first', 'last', 'zimsum', 'mimmax']) {
    const a = await check(rawQuery(agg, { downsample: `0all-${agg}` }), `0all-${agg}, unaligned edges`);
    assert.ok(a.reads.summaryWindows > 0, `0all-${agg}: summaries folded`);
    assert.ok(a.reads.packWindows > 0, `0all-${agg}: the partial days' hours from their packs`);
    // the unaligned edges cut their hours: those hours' blocks, cut to the range, not data-table ranges
    assert.ok(a.reads.blockWindows > 0, `0all-${agg}: the edges' hours from their blocks`);
    assert.equal(a.reads.rawRanges, 0, `0all-${agg}: no data-table range`);
  }
  await check({ ...rawQuery('sum', { downsample: '0all-sum' }), start: DAY0 + 1, end: NOW }, 'up to now: the open end raw');
  const late: Ev = { id: 'b', ts: DAY0 + D + 10 * H + 123, metric: 'temp', value: 999 };
  await writeEvents(store, S, [late]);
  await markEvents(store, S, [late]);
  await check(rawQuery('max', { downsample: '0all-max' }), 'a late event, marked: its windows read raw');
  // a pending day marker: that day's pack may be stale, its hours read as rows
  const before = (await ask(store, catalog, TIER, rawQuery('sum', { downsample: '0all-sum' })))[0];
  await store.put(
    S.rollupTable,
    markerPuts([{ id: 'a', windowSec: 86_400, windowStart: DAY0 }], { keyspace: S.keyspace, family: S.rollupFamily, stamp: NOW }).map((p) => putRowOf(p.row)),
  );
  const staleDay = await check(rawQuery('sum', { downsample: '0all-sum' }), 'a day marked: its hours as rows');
  assert.equal(staleDay.reads.packWindows, (before?.reads.packWindows ?? 0) - 1, 'one pack fewer');
  const [dev] = await ask(store, catalog, TIER, rawQuery('avg', { downsample: '0all-dev' }));
  assert.equal(dev?.reads.summaryWindows, 0, 'dev is not computable from summaries: blocks and raw points');
});

void test("raw plans through the window cache: kept blocks answer again, equal to the data table's, through a late event and the job's rerun", async () => {
  const { store, catalog } = await stored();
  const cachedAsk = cachedAsker(store, catalog);
  const body = rawQuery('avg', { downsample: '5m-avg' });
  const plainAnswer = async (): Promise<SubQueryAnswer> => {
    const [plain] = await ask(store, catalog, { ...TIER, blocks: false }, body);
    assert.ok(plain !== undefined && plain.results.some((r) => r.dps.length > 0));
    return plain;
  };
  const first = await cachedAsk(body);
  assert.ok(first.reads.blockWindows > 0, 'blocks read');
  assert.deepEqual(first.results, (await plainAnswer()).results);
  const scans = store.count('scan', S.rollupTable);
  const again = await cachedAsk(body);
  assert.deepEqual(again.results, first.results);
  assert.equal(again.reads.blockWindows, first.reads.blockWindows);
  const buckets = new Set([...IDS, 'quiet'].map((id) => S.keyspace.baseSalt(id))).size;
  assert.ok(store.count('scan', S.rollupTable) - scans <= buckets, 'the blocks from the cache: only the markers scanned (a scan per bucket)');
  // a late event into a summarised hour: its marker keeps the hour off its (kept) block
  const late: Ev = { id: 'b', ts: DAY0 + D + 10 * H + 123, metric: 'temp', value: 999 };
  await writeEvents(store, S, [late]);
  await markEvents(store, S, [late]);
  const marked = await cachedAsk(body);
  assert.deepEqual(marked.results, (await plainAnswer()).results, 'with the late point');
  await new RollupJob({ store, settings: S, metrics: readMetrics(S).metrics, log: silentLog, now: () => NOW }).run();
  const after = await cachedAsk(body);
  assert.deepEqual(after.results, (await plainAnswer()).results, "after the job's rerun: the new block");
  assert.deepEqual(after.results, marked.results);
});
