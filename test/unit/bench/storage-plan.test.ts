// The storage phase's data sets (the day they cover, what they hold) and its Markdown table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countPlan, densePlan, sideFigures, sparsePlan, storageDay, storageTable, type DatasetFigures } from '../../../scripts/lib/bench/storage-plan.ts';

const now = Date.parse('2026-11-29T13:55:00Z');

test('storageDay is a whole UTC day ending an hour and a rollup grace or more before now', () => {
  assert.deepEqual(storageDay(now), { startTs: Date.parse('2026-11-28T00:00:00Z'), endTs: Date.parse('2026-11-29T00:00:00Z') });
  assert.equal(storageDay(Date.parse('2026-11-29T01:10:00Z')).endTs, Date.parse('2026-11-29T00:00:00Z'));
  assert.equal(storageDay(Date.parse('2026-11-29T01:09:59Z')).endTs, Date.parse('2026-11-28T00:00:00Z'));
});

test('the dense set: every series once a minute over the day, in time order, sent to the TSD in seconds', () => {
  const plan = densePlan({ series: 3, now });
  assert.deepEqual(countPlan(plan), { points: 3 * 1440, series: 3, seriesHours: 3 * 24 });
  const all = [...plan.events()];
  assert.deepEqual(
    all.slice(0, 4).map((e) => [e.id, e.ts - plan.startTs, e.metric, e.tags['site']]),
    [
      ['sensor-00000', 0, 'temp', 'site-0'],
      ['sensor-00001', 0, 'temp', 'site-1'],
      ['sensor-00002', 0, 'temp', 'site-2'],
      ['sensor-00000', 60_000, 'temp', 'site-0'],
    ],
  );
  assert.equal(all.at(-1)?.ts, plan.endTs - 60_000);
  assert.deepEqual([...plan.events()], all, 'the same points each time');
  assert.equal(plan.tsdSeconds, true);
});

test('the sparse set: the generator over the day, sent in milliseconds', () => {
  const plan = sparsePlan({ events: 300, ids: 10, now });
  const c = countPlan(plan);
  assert.equal(c.points, 300);
  assert.ok(c.series <= 30 && c.series > 3);
  const ts = [...plan.events()].map((e) => e.ts);
  assert.ok(ts.every((t) => t >= plan.startTs && t < plan.endTs));
  assert.equal(plan.tsdSeconds, false);
  assert.deepEqual(plan.metrics, ['temp', 'hum', 'load']);
});

test('storageTable: every family of both sides, the totals, the ratio and the TSD compaction', () => {
  const settings = { COMPRESSION: 'SNAPPY', DATA_BLOCK_ENCODING: 'FAST_DIFF', BLOOMFILTER: 'ROW', VERSIONS: '1' };
  const tsd = sideFigures([{ table: 'r_tsdb', role: 'tsdb', family: 't', bytes: 3000, files: 16, settings }], 100);
  const ours = sideFigures(
    [
      { table: 'r_d', role: 'data', family: 'd', bytes: 4000, files: 16, settings },
      { table: 'r_r', role: 'rollup', family: 'p', bytes: 2000, files: 16, settings: { COMPRESSION: 'NONE' } },
    ],
    100,
  );
  assert.equal(ours.bytes, 6000);
  assert.equal(ours.bytesPerPoint, 60);
  const d: DatasetFigures = {
    dataset: 'dense',
    describe: 'test',
    from: 'a',
    to: 'b',
    points: 100,
    series: 2,
    seriesHours: 4,
    tsdTimestamps: 's',
    oursDrainSeconds: 1,
    oursRollupWaitSeconds: 1,
    tsdPutSeconds: 1,
    tsdCompaction: { before: { rows: 4, cells: 100 }, afterReads: { rows: 4, cells: 4 }, after: { rows: 4, cells: 4 }, reads: 1, seconds: 1, stats: {} },
    compactSeconds: 1,
    settleSeconds: 1,
    tsd,
    ours,
    ratio: ours.bytes / tsd.bytes,
  };
  const md = storageTable(d);
  assert.match(md, /\| OpenTSDB 2\.4\.1 \| tsdb \| `t` \| SNAPPY, FAST_DIFF, ROW, 1 \| 16 \| 3,000 \| 30\.0 \|/);
  assert.match(md, /\| ours \| rollup \| `p` \| NONE, \?, \?, \? \| 16 \| 2,000 \| 20\.0 \|/);
  assert.match(md, /\| \*\*ours total\*\* \| \| \| \| \| \*\*6,000\*\* \| \*\*60\.0\*\* \|/);
  assert.match(md, /\*\*2\.00×\*\*/);
  assert.match(md, /25\.0 points per occupied series-hour/);
  assert.match(md, /4 rows \/ 100 cells once every point was stored, 4 rows \/ 4 cells/);
});
