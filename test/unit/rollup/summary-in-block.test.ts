// A block in place of its summary (docs/ROLLUPS.md): the job writes no summary cell beside a block whose
// points fold to the window's summary bit for bit, readers make the summary from the block, and a
// summary cell stays wherever the fold would not give back the same numbers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeRollupKey } from '../../../src/keys/index.ts';
import { RollupJob } from '../../../src/rollup/job.ts';
import { encodePointsBlock } from '../../../src/rollup/points-block.ts';
import { blocksOutlive } from '../../../src/rollup/rollup-settings.ts';
import { encodeSummary, summaryOf, type MetricSummary } from '../../../src/rollup/summary.ts';
import { WindowContent, windowCellsOf, windowSummary, type BlockSettings } from '../../../src/rollup/window-content.ts';
import { rollupItemOf } from '../../../src/reads-v1/decode.ts';
import { parseWindows } from '../../../src/rollup/windows.ts';
import { loadConfig } from '../../../src/runtime/config.ts';
import { FakeHBase } from '../../support/fake-hbase.ts';
import { BLOCK_FAMILY, blocksOfRows, brutePoints, bruteSummaries, sorted, sortedRuns, summariesOfRows, type Ev } from './brute.ts';
import { DAY0, HOUR, markEvents, randomEvents, readMetrics, settings, silentLog, writeEvents } from './job-fixture.ts';

const NOW = DAY0 + 5 * 24 * HOUR;
const m = Buffer.from('temp');
type Cell = { column: Buffer; family: Buffer; qualifier: Buffer; value: Buffer; timestamp: number };
const cell = (family: string, qualifier: Buffer, value: Buffer, timestamp: number): Cell => ({
  column: Buffer.concat([Buffer.from(`${family}:`), qualifier]),
  family: Buffer.from(family),
  qualifier,
  value,
  timestamp,
});

function blocks(standsFor: readonly number[], everySize = true): BlockSettings {
  return { family: BLOCK_FAMILY, maxPoints: 100_000, everySize, standsForSummary: new Set(standsFor) };
}

async function runJob(store: FakeHBase, s: ReturnType<typeof settings>, events: readonly Ev[]): Promise<void> {
  await markEvents(store, s, events);
  const report = await new RollupJob({ store, settings: s, metrics: readMetrics(s).metrics, log: silentLog, now: () => NOW }).run();
  assert.equal(report.ok, true);
}

/** (id|sec|start|metric) of every summary cell (not a block, pack or marker) in the rows. */
function summaryCells(rows: ReturnType<FakeHBase['rows']>): string[] {
  const out: string[] = [];
  for (const row of rows) {
    if (row.row[1] === 0x00) continue;
    const k = decodeRollupKey(row.row);
    for (const c of row.cells) {
      if (c.qualifier[0] === 0x00 || c.family.toString('utf8') === BLOCK_FAMILY) continue;
      out.push(`${k.id}|${k.windowSec}|${k.windowStart}|${c.qualifier.toString('utf8')}`);
    }
  }
  return out.sort();
}

void test('the finest size: no summary cell beside its blocks, every summary read back from them = brute force, packs and coarser summaries too; a late event rewrites them', async () => {
  const s = settings(['1m', '1h'], { blocks: blocks([60, 3600], false) });
  const store = new FakeHBase();
  const events = randomEvents({ seed: 11, n: 800, ids: 6, from: DAY0 + 2 * HOUR, hours: 3 });
  await writeEvents(store, s, events);
  await runJob(store, s, events);
  const rows = (): ReturnType<FakeHBase['rows']> => store.rows(s.rollupTable);
  assert.deepEqual(
    summaryCells(rows()).filter((k) => k.split('|')[1] === '60'),
    [],
    "a minute's block stands for its summary (its points were folded newest first)",
  );
  assert.ok(
    summaryCells(rows()).some((k) => k.split('|')[1] === '3600'),
    'an hour has no block of its own (everySize off): its summary cell stays',
  );
  assert.deepEqual(sorted(summariesOfRows(rows())), sorted(bruteSummaries(events, [60, 3600])), 'summaries made from the blocks and cells = brute force');
  assert.deepEqual(sortedRuns(blocksOfRows(rows())), sortedRuns(brutePoints(events, [60])));

  const late: Ev = { id: events[0]?.id ?? 'x', ts: DAY0 + 2 * HOUR + 17, metric: 'temp', value: 42.5 };
  await writeEvents(store, s, [late]);
  await runJob(store, s, [late]);
  const all = [...events, late];
  assert.deepEqual(sorted(summariesOfRows(rows())), sorted(bruteSummaries(all, [60, 3600])), 'the late event in its minute (from the block) and its hour');
});

void test('a block stands for its summary only when newer than every summary cell of its metric, with the pack of its own put', () => {
  const run = { ts: [DAY0, DAY0 + 1000, DAY0 + 2000], values: [0.1, 0.2, 0.3] };
  const block = encodePointsBlock(DAY0, run);
  const older = encodeSummary(summaryOf(DAY0, 99));
  const alone = windowCellsOf([cell(BLOCK_FAMILY, m, block, 9)], BLOCK_FAMILY).get('temp');
  assert.ok(alone !== undefined && alone.summary === undefined && alone.block !== undefined);
  const made = windowSummary(alone, 'temp', DAY0, HOUR);
  const want: MetricSummary = { count: 3, sum: 0.3 + 0.2 + 0.1, min: 0.1, max: 0.3, firstTs: DAY0, first: 0.1, lastTs: DAY0 + 2000, last: 0.3 };
  assert.deepEqual(made.summary, want, 'folded newest first: (0.3 + 0.2) + 0.1');
  assert.deepEqual(made.run, run);

  const newer = windowCellsOf([cell('r1h', m, older, 8), cell(BLOCK_FAMILY, m, block, 9)], BLOCK_FAMILY).get('temp');
  assert.equal(newer?.summary, undefined, 'a block newer than the summary cell (a rewrite without one) stands for it');
  const stale = windowCellsOf([cell('r1h', m, older, 10), cell(BLOCK_FAMILY, m, block, 9)], BLOCK_FAMILY).get('temp');
  assert.ok(stale?.summary !== undefined && stale.block === undefined, 'a newer summary cell wins; the older block is not read');
  assert.equal(windowSummary(stale, 'temp', DAY0, HOUR).summary.max, 99);
  assert.throws(() => windowSummary({}, 'temp', DAY0, HOUR), /neither a summary nor a block/);
});

void test('the job keeps the summary cell where the block would not give back its numbers: points folded in another order', () => {
  const s = settings(['1h']);
  const key = s.keyspace.rollupKey({ id: 'a', windowSec: 3600, windowStart: DAY0 });
  const put = (ascending: boolean): string[] => {
    const acc = new WindowContent(blocks([3600]));
    const points: [number, number][] = [
      [DAY0, 0.1],
      [DAY0 + 1000, 0.2],
      [DAY0 + 2000, 0.3],
    ];
    for (const [t, v] of ascending ? points : [...points].reverse()) acc.addPoint('temp', t, v);
    const row = acc.putRow(key, 'r1h', 7, { start: DAY0, sizeSec: 3600 });
    return (row?.cells ?? []).map((c) => c.column.toString('utf8'));
  };
  assert.deepEqual(put(false), [`${BLOCK_FAMILY}:temp`], 'newest first, as a scan adds them: the block alone');
  assert.deepEqual(put(true), ['r1h:temp', `${BLOCK_FAMILY}:temp`], '(0.1 + 0.2) + 0.3 is not (0.3 + 0.2) + 0.1: the summary cell stays');
  const other = new WindowContent(blocks([60]));
  other.addPoint('temp', DAY0, 1);
  assert.equal(other.putRow(key, 'r1h', 7, { start: DAY0, sizeSec: 3600 })?.cells.length, 2, 'a size the blocks do not stand for keeps its cell');
});

void test('the blocks stand for the summaries of the sizes they are kept at least as long as', () => {
  const sizes = (sets: string[]): number[] => [...blocksOutlive(loadConfig({ sets }))].sort((a, b) => a - b);
  assert.deepEqual(sizes([]), [3600, 86_400], 'defaults: raw rows, blocks and summaries all forever');
  assert.deepEqual(
    sizes(['tables.data.ttlSeconds=604800', 'tables.rollup.ttlByWindow={"1h": 31536000, "1d": null}']),
    [],
    'blocks with the raw rows, a week: summaries outlive them',
  );
  assert.deepEqual(
    sizes(['tables.data.ttlSeconds=604800', 'tables.rollup.pointsTtlSeconds=31536000', 'tables.rollup.ttlByWindow={"1h": 31536000, "1d": null}']),
    [3600],
    'blocks a year: the hours (a year), not the days (forever)',
  );
  assert.deepEqual(sizes(['tables.data.ttlSeconds=3600', 'tables.rollup.pointsTtlSeconds=null']), [3600, 86_400]);
});

void test('the rollup read API answers a window whose block stands for its summary', () => {
  const s = settings(['1h']);
  const run = { ts: [DAY0 + 5, DAY0 + 60_000], values: [3, 4.5] };
  const row = { row: s.keyspace.rollupKey({ id: 'a', windowSec: 3600, windowStart: DAY0 }), cells: [cell(BLOCK_FAMILY, m, encodePointsBlock(DAY0, run), 9)] };
  const window = parseWindows(['1h'])[0];
  assert.ok(window !== undefined);
  const item = rollupItemOf(row, { window, keyspace: s.keyspace, blockFamily: BLOCK_FAMILY }, null);
  assert.deepEqual(item?.metrics['temp'], { count: 2, sum: 7.5, min: 3, max: 4.5, mean: 3.75, first: 3, firstTs: DAY0 + 5, last: 4.5, lastTs: DAY0 + 60_000 });
  assert.equal(rollupItemOf(row, { window, keyspace: s.keyspace, blockFamily: BLOCK_FAMILY }, 'hum'), null, 'another metric: nothing');
});
