// The series API over a rollup table whose hour blocks stand for their summaries (no summary cell,
// docs/ROLLUPS.md "A block in place of its summary"): every plan — summaries of the hours, day packs,
// raw windows from blocks, `0all` folds of summaries — answers exactly as over the same points stored
// with a summary cell beside every block.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SubQueryAnswer } from '../../../src/series-query/execute.ts';
import type { RollupTier } from '../../../src/series-query/plan.ts';
import { BLOCK_FAMILY, prng, type Ev } from '../rollup/brute.ts';
import { runQuery } from './query-fixture.ts';
import { summarisedWorld, worldReads, type RollupWorld } from './rollup-world.ts';

const H = 3_600_000;
const D = 24 * H;
const DAY0 = Date.UTC(2024, 10, 21);
const NOW = DAY0 + 6 * D;
const TIER: RollupTier = { windowsMs: [H, D], graceMs: 0, ttlMsByWindow: new Map(), rawTtlMs: null, blocksTtlMs: null, blocks: true, blockSizesMs: [H] };

function events(): Ev[] {
  const rand = prng(29);
  return Array.from({ length: 1500 }, () => ({
    id: ['a', 'b', 'c', 'd'][Math.floor(rand() * 4)] as string,
    ts: DAY0 + Math.floor(rand() * 3 * D),
    metric: 'temp',
    value: Math.round(rand() * 10_000) / 100,
  }));
}

type World = RollupWorld;

function stored(standsFor: readonly number[]): Promise<World> {
  return summarisedWorld(events(), { family: BLOCK_FAMILY, maxPoints: 100_000, everySize: false, standsForSummary: new Set(standsFor) }, NOW);
}

/** Summary cells of hour rows (not blocks, packs or markers). */
function hourSummaryCells(w: World): number {
  let n = 0;
  for (const row of w.store.rows(w.s.rollupTable)) {
    if (row.row[1] === 0x00 || w.s.keyspace.decodeRollupKey(row.row).windowSec !== 3600) continue;
    n += row.cells.filter((c) => c.family.toString() !== BLOCK_FAMILY && c.qualifier[0] !== 0x00).length;
  }
  return n;
}

async function ask(w: World, downsample: string | undefined, range: { start: number; end: number }): Promise<SubQueryAnswer> {
  const reads = worldReads(w, BLOCK_FAMILY);
  const q = {
    aggregator: 'sum',
    metric: 'temp',
    filters: [{ type: 'wildcard', tagk: 'id', filter: '*', groupBy: true }],
    ...(downsample === undefined ? {} : { downsample }),
  };
  const [a] = await runQuery({ ...range, msResolution: true, queries: [q] }, { catalog: w.catalog, reads, tier: TIER, now: NOW });
  assert.ok(a !== undefined);
  return a;
}

void test('hour blocks standing for their summaries: every plan answers as with a summary cell beside each block', async () => {
  const [derived, cells] = [await stored([3600]), await stored([])];
  assert.equal(hourSummaryCells(derived), 0, 'no hour summary cell: every block stands for its summary');
  assert.ok(hourSummaryCells(cells) > 0);
  const cases: [string | undefined, { start: number; end: number }][] = [
    ['1h-avg', { start: DAY0, end: DAY0 + 3 * D }], // whole days: the day packs
    ['1h-max', { start: DAY0 + 5 * H, end: DAY0 + 2 * D + 7 * H }], // hour rows at the edges
    ['1d-sum', { start: DAY0, end: DAY0 + 3 * D }],
    ['2h-count', { start: DAY0 + 3 * H, end: DAY0 + D + 9 * H }],
    ['1h-first', { start: DAY0 + 2 * H, end: DAY0 + 20 * H }],
    ['0all-avg', { start: DAY0 + H, end: DAY0 + 2 * D }],
    ['10m-avg', { start: DAY0 + 3 * H, end: DAY0 + D + 9 * H }], // raw, from the hour blocks
    [undefined, { start: DAY0 + 3 * H + 5, end: DAY0 + 2 * D + 5 * H }],
  ];
  for (const [downsample, range] of cases) {
    const [a, b] = [await ask(derived, downsample, range), await ask(cells, downsample, range)];
    assert.ok(
      b.results.some((r) => Object.keys(r.dps).length > 0 || (Array.isArray(r.dps) && r.dps.length > 0)),
      `${downsample ?? 'raw'}: the reference has data`,
    );
    assert.deepEqual(a.results, b.results, `${downsample ?? 'raw'}: the same answer`);
  }
});
