// The opentsdb phase's table: both write passes with TSD and HBase CPU, ours from the same run's
// drains, the reads with their CPU per read; a drain not run is said, not rendered as NaN.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openTsdbTable } from '../../../scripts/lib/bench/opentsdb-report.ts';
import type { OpenTsdbFigures } from '../../../scripts/lib/bench/opentsdb.ts';

const read = (p50: number, items: number): OpenTsdbFigures['idDay']['tsd'] => ({
  p50,
  p99: p50 * 2,
  n: 24,
  meanItems: items,
  cpuMsPerRead: { hbase: 3, bench: Number.NaN },
});
const figures: OpenTsdbFigures = {
  version: '2.4.1',
  points: 300_000,
  batch: 500,
  inFlight: 8,
  buckets: 16,
  cold: { points: 300_000, seconds: 20, pointsPerSec: 15_000, tsdCpuMsPer1000: 40, hbaseCpuMsPer1000: 39.4 },
  warm: { points: 300_000, seconds: 6, pointsPerSec: 50_000, tsdCpuMsPer1000: 8, hbaseCpuMsPer1000: 11 },
  hbaseIdleCpuMsPerSec: 78,
  load: { events: 300_000, dataRows: 300_000, indexRows: 300_000, seconds: 11 },
  idDay: { tsd: read(40.5, 217), ours: read(18.1, 217) },
  bySite: { tsd: read(405, 44_760), ours: read(3657, 44_760) },
};

test('the table holds both passes, the drains of the same run and the reads', () => {
  const text = openTsdbTable(figures, [{ label: 'index off', eventsPerSec: 17_869, cpuMsPer1000: 29.9, hbaseCpuMsPer1000: 33.4, restCpuMsPer1000: 17.6 }]).join(
    '\n',
  );
  assert.match(
    text,
    /\| writes, cold \| 15,000 points\/s \(20\.0 s\); CPU per 1,000: TSD 40\.0 ms, HBase 39\.4 ms \| index off: 17,869 events\/s; CPU per 1,000: service 29\.9 ms, HBase 33\.4 ms, REST gateway 17\.6 ms \|/,
  );
  assert.match(text, /\| writes, warm \| 50,000 points\/s/);
  assert.match(text, /18\.1 \/ 36\.2 ms \(24 reads, 217 events each\); CPU ms per read: hbase 3\.0 \|/);
  assert.match(text, /78 ms\/s/);
  assert.doesNotMatch(text, /NaN/);
});

test('without a drain in the run, ours says so', () => {
  const text = openTsdbTable(figures, [{ label: 'index off', eventsPerSec: Number.NaN, cpuMsPer1000: Number.NaN }]).join('\n');
  assert.match(text, /\| drain not run \|/);
  assert.doesNotMatch(text, /NaN/);
});
