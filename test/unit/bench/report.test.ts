// The benchmark's Markdown rendering: phases that were not run, the stall-only run, the marker block.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { markdownTable, updateBenchmarksMd, type Figures, type ScenarioFigures } from '../../../scripts/lib/bench/report.ts';
import { NO_STEADY } from '../../../scripts/lib/bench/service.ts';

const machine = { nproc: 2, cpuModel: 'cpu', ramGiB: 4, node: 'v24', hbase: '2.6.1', kafka: '3.9.1' };
const scenario: ScenarioFigures = {
  label: 'index off',
  indexTags: [],
  rowsPerEvent: 1,
  serviceEventsPerSec: 20_000,
  serviceSeconds: 5,
  cpuMsPer1000: 40,
  peakRssMiB: 200,
  hwmMiB: 210,
  ceilingEventsPerSec: 25_000,
  nativeEventsPerSec: NaN,
  nativeThreads: 4,
  steady: { ...NO_STEADY, targetRate: 10_000 },
  skew: { serviceRun: 1.2, serviceWindow: 1.3 },
  profile: { 'HTTP (undici, REST transport)': 30, other: 10 },
  profileSelf: { 'HTTP (undici, REST transport)': 20, other: 20 },
};
const figures: Figures = {
  date: '2026-01-01T00:00:00.000Z',
  command: 'npm run bench -- --events 100',
  machine,
  events: 100_000,
  ids: 100,
  buckets: 16,
  partitions: 8,
  putEncoding: 'protobuf',
  produceEventsPerSec: 50_000,
  scenarios: [scenario],
  compression: 'SNAPPY',
};

test('measured figures are rendered, phases not run say so instead of NaN', () => {
  const md = markdownTable(figures);
  assert.match(md, /\| service throughput \(own process, backlog drain\) \| 20,000 events\/s \(5\.0 s\) \|/);
  assert.match(md, /\| \*\*service \/ REST ceiling\*\* \(target ≥ 0\.85\) \| 0\.80 \|/);
  assert.match(md, /\| native Java client \(BufferedMutator, same rows\) \| not run \|/);
  assert.match(md, /\| \*\*service \/ native\*\* \(target ≥ 0\.6\) \| not run \|/);
  assert.match(md, /e2e latency at 50 % load.*\| not run \|/);
  assert.doesNotMatch(md, /NaN/);
  assert.match(md, /\| HTTP \(undici, REST transport\) \| 30\.00 \| 75 % \| 20\.00 \|/);
});

test('a stall-only run renders a one-column table with the count check', () => {
  const md = markdownTable({
    ...figures,
    scenarios: [],
    produceEventsPerSec: NaN,
    stall: { rate: 1000, stallSeconds: 10, produced: 30_000, rowsCounted: 29_990, peakRssMiB: 250, hwmMiB: 251, recoverSeconds: 4 },
  });
  const rows = md.split('\n').filter((l) => l.startsWith('|'));
  assert.equal(rows[0], '| figure | value |');
  assert.equal(rows.length, 3);
  assert.match(rows[2] ?? '', /30,000 events produced at 1,000\/s, 29,990 rows counted by scan \(\*\*10 missing\*\*\)/);
  assert.doesNotMatch(md, /NaN|produce rate/);
});

test('only the block between the markers of BENCHMARKS.md is replaced', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-md-'));
  try {
    const path = join(dir, 'BENCHMARKS.md');
    writeFileSync(path, '# B\n\nintro\n\n<!-- bench:results:begin -->\nold\n<!-- bench:results:end -->\n\nnotes\n');
    updateBenchmarksMd(path, figures, 'bench-results/x.json');
    const text = readFileSync(path, 'utf8');
    assert.ok(text.startsWith('# B\n\nintro\n\n<!-- bench:results:begin -->\nLatest run: 2026-01-01T00:00:00.000Z'));
    assert.ok(text.endsWith('<!-- bench:results:end -->\n\nnotes\n'));
    assert.doesNotMatch(text, /\nold\n/);
    assert.match(text, /results file `bench-results\/x\.json`/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the 50 % phase renders its latency and what it is made of', () => {
  const steady = {
    ...NO_STEADY,
    events: 50_000,
    targetRate: 10_000,
    achievedRate: 9_950,
    p50: 0.1,
    p99: 0.24,
    samples: 50_000,
    putP50: 0.02,
    putP99: 0.09,
    puts: 700,
    units: 350,
    eventsPerUnit: 142.9,
  };
  const md = markdownTable({ ...figures, scenarios: [{ ...scenario, steady }] });
  assert.match(md, /\| \*\*e2e latency at 50 % load, p50 \/ p99\*\* \(target p99 ≤ 250 ms\) \| 100 ms \/ 240 ms \(9,950\/s\) \|/);
  assert.match(md, /\| at 50 % load: one REST put, p50 \/ p99; flush units \(mean events each\) \| 20 ms \/ 90 ms; 350 units \(143\) \|/);
});
