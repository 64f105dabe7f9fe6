// Point blocks of the finest size alone (rollup.pointBlocks.everySize false, the default): the job
// writes no day block, and a raw read of whole closed days takes each hour's block, with the same
// answer as the data table alone. With every size (true) the same read takes day blocks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SubQueryAnswer } from '../../../src/series-query/execute.ts';
import type { RollupTier } from '../../../src/series-query/plan.ts';
import type { RollupSettings } from '../../../src/rollup/rollup-settings.ts';
import { FakeHBase } from '../../support/fake-hbase.ts';
import { BLOCK_FAMILY, prng, type Ev } from '../rollup/brute.ts';
import { runQuery } from './query-fixture.ts';
import { summarisedWorld, worldReads, type RollupWorld } from './rollup-world.ts';

const H = 3_600_000;
const D = 24 * H;
const DAY0 = Date.UTC(2024, 10, 21);
const NOW = DAY0 + 6 * D;

function events(): Ev[] {
  const rand = prng(11);
  return Array.from({ length: 1200 }, () => ({
    id: ['a', 'b', 'c'][Math.floor(rand() * 3)] as string,
    ts: DAY0 + Math.floor(rand() * 3 * D),
    metric: 'temp',
    value: Math.round(rand() * 1000) / 10,
  }));
}

function stored(everySize: boolean): Promise<RollupWorld> {
  return summarisedWorld(events(), { family: BLOCK_FAMILY, maxPoints: 100_000, everySize }, NOW);
}

/** Block cells in the rollup table, by window size (seconds). */
function blockCellsBySize(store: FakeHBase, s: RollupSettings): Map<number, number> {
  const out = new Map<number, number>();
  for (const row of store.rows(s.rollupTable)) {
    if (row.row[1] === 0x00) continue; // markers
    const { windowSec } = s.keyspace.decodeRollupKey(row.row);
    const n = row.cells.filter((c) => c.family.toString() === BLOCK_FAMILY).length;
    out.set(windowSec, (out.get(windowSec) ?? 0) + n);
  }
  return out;
}

async function ask(w: RollupWorld, tier: RollupTier): Promise<SubQueryAnswer> {
  const reads = worldReads(w, tier.blocks ? BLOCK_FAMILY : null);
  const body = {
    start: DAY0 + 3 * H + 5,
    end: DAY0 + 2 * D + 5 * H,
    msResolution: true,
    queries: [{ aggregator: 'none', metric: 'temp', filters: [{ type: 'wildcard', tagk: 'id', filter: '*', groupBy: true }] }],
  };
  const [a] = await runQuery(body, { catalog: w.catalog, reads, tier, now: NOW });
  assert.ok(a !== undefined);
  return a;
}

const TIER: RollupTier = { windowsMs: [H, D], graceMs: 0, ttlMsByWindow: new Map(), rawTtlMs: null, blocksTtlMs: null, blocks: true };

void test('blocks of the finest size alone: no day block written; a whole day read from its hours, equal to the data table', async () => {
  const w = await stored(false);
  const cells = blockCellsBySize(w.store, w.s);
  assert.ok((cells.get(3600) ?? 0) > 0, 'hour blocks written');
  assert.equal(cells.get(86_400) ?? 0, 0, 'no day block');
  const fromHours = await ask(w, { ...TIER, blockSizesMs: [H] });
  const plain = await ask(w, { ...TIER, blocks: false });
  assert.ok(
    plain.results.some((r) => r.dps.length > 0),
    'the reference has data',
  );
  assert.deepEqual(fromHours.results, plain.results, 'every point, as the data table holds it');
  assert.equal(fromHours.reads.rawRanges, 0, 'no data-table range: closed hours all');
  // hours 3–23 of day 0, day 1's 24 hours and hours 0–5 of day 2, per id: each an hour block (or no row)
  assert.ok(fromHours.reads.blockWindows > 3 * 24, `hour blocks read: ${fromHours.reads.blockWindows}`);
});

void test('blocks of every size: the same read takes the day block of the whole day', async () => {
  const w = await stored(true);
  assert.ok((blockCellsBySize(w.store, w.s).get(86_400) ?? 0) > 0, 'day blocks written');
  const fromDays = await ask(w, TIER);
  const fromHours = await ask(w, { ...TIER, blockSizesMs: [H] });
  assert.deepEqual(fromDays.results, fromHours.results);
  assert.ok(fromDays.reads.blockWindows < fromHours.reads.blockWindows, 'fewer cells: one a day');
});
