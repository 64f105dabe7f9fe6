// tsingest whatif against reality: the prediction for the service's own layout is made from a sample
// file, the same file is produced to Kafka with `tsingest produce` and ingested by the real service,
// and HBase's own per-region write counters (the region loads in /status/cluster) are the
// measurement. Predicted and measured skew of the data and the index table must agree within 10 %.
// The same sample read back with `--topic` gives the same prediction as the file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { generateEvents } from '../../../src/demo/generate.ts';
import { encodedRegionName } from '../../../src/doctor/gather.ts';
import { computeSkew } from '../../../src/load/region-writes.ts';
import type { WhatIfReport } from '../../../src/whatif/whatif-render.ts';
import { NODE_BIN, REPO_ROOT, createHarness, startInProcess, waitFor, waitForEvents, type Harness } from '../../support/service-harness.ts';

const run = promisify(execFile);
const EVENTS = 12_000;
const SETS = ['keys.saltBuckets=8', 'index.tags=["site","rack"]', 'keys.spread.auto=false'];

/** Writes per region of a table, from HBase's region loads, in key order. */
async function measured(h: Harness, table: string): Promise<number[]> {
  const regions = await h.rest.regions(table);
  const status = await h.rest.clusterStatus();
  const loads = new Map<string, number>();
  for (const n of status.liveNodes) for (const r of n.regions) loads.set(encodedRegionName(r.name.toString('latin1')), r.writeRequestsCount);
  return regions.map((r) => loads.get(encodedRegionName(r.name)) ?? 0);
}

void test('tsingest whatif: predicted skew of the service layout matches the skew HBase measures after ingesting the same sample (within 10 %)', async (t) => {
  const h = await createHarness(t, { prefix: 'whatif', sets: SETS });
  const dir = mkdtempSync(join(tmpdir(), 'whatif-'));
  const file = join(dir, 'sample.jsonl');
  const events = [...generateEvents({ count: EVENTS, ids: 400, startTs: Date.now() - 3_600_000, stepMs: 1, seed: 11, racks: 10 })];
  writeFileSync(file, events.map((e) => JSON.stringify(e)).join('\n') + '\n');
  const cli = async (argv: readonly string[]): Promise<string> =>
    (await run(NODE_BIN, ['src/cli.ts', ...argv, ...h.baseSets.flatMap((s) => ['--set', s])], { cwd: REPO_ROOT, maxBuffer: 64 << 20 })).stdout;

  const svg = join(dir, 'heatmap.svg');
  const fromFile = JSON.parse(await cli(['whatif', '--file', file, '--json', '--svg', svg])) as WhatIfReport;
  const current = fromFile.predictions[0];
  assert.ok(current !== undefined);
  assert.equal(current.name, 'B8 binary spread off index entry', 'the first layout is the configured one');
  assert.equal(fromFile.predictions.length, 5, 'current (= spread off, entry), value salting, spread on ×2, unsalted');
  assert.equal(fromFile.sample.events, EVENTS);
  assert.ok(readFileSync(svg, 'utf8').startsWith('<svg'), 'the heatmap was written');

  await cli(['produce', '--file', file]);
  const svc = await startInProcess(h, []);
  await waitForEvents(svc, EVENTS);
  await svc.stop('measured');

  // Region loads reach the master with the region servers' reports (every few seconds).
  let data: number[] = [];
  let index: number[] = [];
  await waitFor(
    'the region loads to count every row',
    60_000,
    async () => {
      [data, index] = await Promise.all([measured(h, h.names.data), measured(h, h.names.index)]);
      return data.reduce((a, b) => a + b, 0) >= EVENTS && index.reduce((a, b) => a + b, 0) >= 2 * EVENTS;
    },
    1000,
  );
  const predicted = { data: current.data.skew, index: current.index?.skew ?? 0 };
  const actual = { data: computeSkew(data), index: computeSkew(index) };
  t.diagnostic(
    `data: predicted ${predicted.data.toFixed(3)} measured ${actual.data.toFixed(3)}; index: predicted ${predicted.index.toFixed(3)} measured ${actual.index.toFixed(3)}`,
  );
  t.diagnostic(`data rows per region: predicted ${current.data.perRegion.join(',')} measured ${data.join(',')}`);
  assert.ok(predicted.data > 1.5, `the Zipf sample is skewed without spreading (${predicted.data})`);
  assert.ok(Math.abs(actual.data - predicted.data) <= 0.1 * predicted.data, `data skew: predicted ${predicted.data}, measured ${actual.data}`);
  assert.ok(Math.abs(actual.index - predicted.index) <= 0.1 * predicted.index, `index skew: predicted ${predicted.index}, measured ${actual.index}`);

  // The oldest records of the topic are the same sample: the same prediction.
  const fromTopic = JSON.parse(await cli(['whatif', '--topic', h.names.topic, '--max', String(EVENTS), '--json', '--svg', svg])) as WhatIfReport;
  assert.equal(fromTopic.sample.events, EVENTS);
  assert.deepEqual(
    fromTopic.predictions.map((p) => [p.name, p.data.perRegion, p.index?.perRegion]),
    fromFile.predictions.map((p) => [p.name, p.data.perRegion, p.index?.perRegion]),
  );
});
