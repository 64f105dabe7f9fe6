// Scale-out by consumer group, with three service instances (child processes) on one 8-partition
// topic under a steady produce stream: instances join and leave mid-stream (a graceful stop, a kill -9,
// restarts), and afterwards every event is in the data and index tables exactly once; each
// partition's lag series is on exactly one live instance, the one the group assigned it to; a real
// Prometheus scraping the three computes the cluster-wide skew rule from their raw series; and three
// concurrent `tsingest rollup run` write the very cells one run writes over the same markers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyTables } from '../../../src/admin/apply-tables.ts';
import { decodeDataKey } from '../../../src/keys/index.ts';
import { rollupSettings } from '../../../src/rollup/rollup-settings.ts';
import { keyspaceOf, tablesOf } from '../../../src/service/keyspace.ts';
import { eventsWritten, scrapeMetrics } from '../../../scripts/lib/bench/metrics-text.ts';
import { uniqueName } from '../../support/env.ts';
import { countDataCells, countIndexed, createHarness, offsets, retryingRest, waitFor, waitForCommittedAtEnd } from '../../support/service-harness.ts';
import { bruteSummaries, sorted } from '../../unit/rollup/brute.ts';
import { startPrometheus } from '../observability/prometheus.ts';
import { readRollupTable } from '../rollup/helpers.ts';
import { expectedDataKeys, expectedIndexKeys, registryNow, tableRows } from '../spread/helpers.ts';
import { copyRows, rollupRun, skewPoints, tableCells, type SkewPoint } from './scale-out-checks.ts';
import { Instances, startStream, waitForGroup, waitForLagOwners, waitForWrites, type GroupView } from './scale-out-helpers.ts';

const same = (a: number, b: number): boolean => Math.abs(a - b) <= 1e-9 * Math.abs(b);
const exact = (p: SkewPoint): boolean => same(p.recorded, p.computed);
const JOB = 'tsingest-scale-out';
const PARTITIONS = 8;
// 1 m and 1 h windows, closed at once (the stream's events are hours old).
const ROLLUP = ['rollup.windows=["1m","1h"]', 'rollup.graceMs=0'];
// The instances' own rollup job leaves every marker (settling), so the runs below find them all.
const INSTANCE_SETS = ['rollup.markerSettleMs=3600000', 'rollup.intervalMs=3600000'];

const written = async (port: number): Promise<number | null> => {
  const text = await scrapeMetrics(port);
  return text === null ? null : eventsWritten(text);
};

void test('three instances of one group on 8 partitions: rebalances, kill -9, restarts → exactly once; lag, skew rule and rollups agree', async (t) => {
  const h = await createHarness(t, { prefix: 'scale', partitions: PARTITIONS, sets: ROLLUP });
  const group = uniqueName('it-scale-g');
  const inst = new Instances(h, [`kafka.groupId=${group}`, ...INSTANCE_SETS]);
  for (const name of ['a', 'b', 'c']) await inst.add(name);
  const prom = await startPrometheus({ job: JOB, targets: inst.all.map((i) => `127.0.0.1:${i.port}`), defer: h.defer });
  const nameOf = (clientId: string): string => inst.all.find((i) => i.clientId === clientId)?.name ?? clientId;
  const timeline: string[] = [];
  const show = (m: ReadonlyMap<string, readonly number[] | null>): string =>
    [...m]
      .map(([c, p]) => `${nameOf(c)}=[${p?.join(',') ?? 'no /metrics'}]`)
      .sort()
      .join(' ');
  // After every change of members: the group settles, then each partition's lag series must be on
  // exactly one live instance, its owner (none left behind on an instance that lost it).
  const settle = async (step: string): Promise<GroupView> => {
    const view = await waitForGroup(h, group, inst, { partitions: PARTITIONS });
    const lag = await waitForLagOwners(h, inst, view);
    timeline.push(`${step}: owners ${show(view.owners)}; lag series ${show(lag)}`);
    return view;
  };

  inst.start('a');
  const stream = await startStream(h, 40);
  await waitForWrites(inst, 'a to write', written);
  await settle('a alone');
  inst.start('b');
  inst.start('c');
  await settle('b and c joined');
  await waitForWrites(inst, 'a, b and c to write', written);
  await inst.kill9('b');
  await settle('b killed (kill -9)');
  await inst.stop('c');
  await settle('c stopped (SIGTERM, drained)');
  inst.start('b');
  inst.start('c');
  await settle('b and c restarted');
  await waitForWrites(inst, 'the restarted b and c to write', written);

  // While all three write: the recorded cluster-wide skew = the value computed from the raw series.
  let points: SkewPoint[] = [];
  await waitFor(
    'a recorded skew over the writes of all three instances',
    120_000,
    async () => {
      inst.check();
      points = (await skewPoints(prom, JOB, h.names.data, 15)).filter((p) => p.instances === 3);
      return points.filter(exact).length >= 3;
    },
    2000,
  );

  const events = await stream.stop();
  await waitForCommittedAtEnd(h, group, 180_000);
  const view = await settle('stream over, group stable');

  await t.test("each partition's lag series is on exactly one live instance: the one that owns it", async () => {
    // settle() checked this after every change of members; once more now that the stream is over.
    const lag = await waitForLagOwners(h, inst, view);
    assert.deepEqual(
      [...lag.values()].flatMap((p) => p ?? []).sort((x, y) => x - y),
      Array.from({ length: PARTITIONS }, (_v, p) => p),
    );
    t.diagnostic(`lag series per instance: ${show(lag)}`);
  });

  await t.test('the cluster-wide skew rule over the three instances equals the value computed from their raw series', () => {
    // The rule's expression, evaluated by a query at each recorded point's time, must equal the value
    // computed here from the same raw series at every point. The recorded samples themselves equal it
    // at most points, not all: a scrape is stamped with its start time but stored when it ends, and
    // when that falls across a rule evaluation the rule saw the series without a sample the later
    // queries see. On a loaded machine that is many points, so the recorded series must only match
    // exactly at 3 (a wrong rule matches at none).
    t.diagnostic(`skew (computed over 3 instances, ${points[0]?.regions ?? 0} regions): ${points.map((p) => p.computed.toFixed(4)).join(', ')}`);
    const off = points.filter((p) => !exact(p));
    if (off.length > 0)
      t.diagnostic(
        `recorded differs (a scrape stored after the evaluation): ${off.map((p) => `at ${p.at} recorded ${p.recorded.toFixed(4)} computed ${p.computed.toFixed(4)}`).join('; ')}`,
      );
    const wrong = points.filter((p) => !same(p.evaluated, p.computed));
    assert.deepEqual(
      wrong.map((p) => `at ${p.at}: rule ${p.evaluated} ≠ ${p.computed}`),
      [],
      "the rule's expression = the value computed from the raw series, at every point",
    );
    assert.ok(points.length - off.length >= 3, `the recorded series equals it at ${points.length - off.length} of ${points.length} points`);
  });

  const perInstance = await Promise.all(inst.live().map(async (i) => `${i.name} ${(await written(i.port)) ?? 'n/a'}`));
  for (const name of ['a', 'b', 'c']) await inst.stop(name);
  t.diagnostic(`timeline:\n  ${timeline.join('\n  ')}`);

  await t.test('every produced event is in the data and index tables exactly once', async () => {
    const cfg = h.config([`kafka.groupId=${group}`]);
    const { keyspace } = await registryNow(h, cfg);
    const data = await tableRows(h, h.names.data);
    const perEvent = new Map<string, number>();
    for (const k of data.keys) {
      const d = decodeDataKey(Buffer.from(k, 'hex'), cfg.keys.saltBuckets);
      perEvent.set(`${d.id}|${d.ts}`, (perEvent.get(`${d.id}|${d.ts}`) ?? 0) + 1);
    }
    const index = await tableRows(h, h.names.index);
    const o = await offsets(h, group);
    t.diagnostic(
      `produced ${events.length}; data rows ${data.keys.length} (rows per (id, ts): max ${Math.max(...perEvent.values())}); index rows ${index.keys.length} of ${countIndexed(events)}; events counted written by the final instances: ${perInstance.join(', ')}`,
    );
    assert.deepEqual(o.committed, o.end, 'committed = end offsets on every partition');
    assert.equal(
      Object.values(o.end).reduce((s, x) => s + x, 0n),
      BigInt(events.length),
      'the topic holds what was produced',
    );
    assert.equal(perEvent.size, events.length, 'one (id, ts) per produced event');
    assert.ok(
      [...perEvent.values()].every((n) => n === 1),
      'one row per (id, ts)',
    );
    assert.deepEqual(data.keys, expectedDataKeys(keyspace, events), "data rows = the events' keys");
    assert.equal(await countDataCells(h), events.length, 'one metric cell per event');
    assert.deepEqual(index.keys, expectedIndexKeys(keyspace, events), "index rows = the tagged events' keys");
  });

  await t.test('three concurrent rollup runs write the cells one run writes over the same markers', async () => {
    const cfgA = h.config(['kafka.groupId=unused']);
    const single = uniqueName('it_scale_r1');
    const cfgB = h.config(['kafka.groupId=unused', `tables.rollup.name=${single}`]);
    h.defer(() => retryingRest(`drop ${single}`, () => h.rest.deleteTable(single, { ignoreMissing: true })));
    await retryingRest('apply tables', () => applyTables(cfgB, h.tableAdmin, h.rest));
    const a = { h, cfg: cfgA, s: rollupSettings(cfgA, keyspaceOf(cfgA), tablesOf(cfgA)) };
    const b = { h, cfg: cfgB, s: rollupSettings(cfgB, keyspaceOf(cfgB), tablesOf(cfgB)) };
    const before = await readRollupTable(a);
    assert.equal(before.summaryRows, 0, 'the instances rolled nothing up (markers settling)');
    assert.equal(await copyRows(h, h.names.rollup, single), before.markers.length);

    const now = ['rollup.markerSettleMs=0', 'log.level=warn'];
    const three = await Promise.all([0, 1, 2].map(() => rollupRun(h, now)));
    for (const r of three) assert.equal(r.code, 0, r.output);
    const one = await rollupRun(h, [...now, `tables.rollup.name=${single}`]);
    assert.equal(one.code, 0, one.output);

    const [concurrent, alone] = [await tableCells(h, h.names.rollup), await tableCells(h, single)];
    const [ta, tb] = [await readRollupTable(a), await readRollupTable(b)];
    t.diagnostic(
      `markers ${before.markers.length}; summary rows: three concurrent runs ${ta.summaryRows}, one run ${tb.summaryRows}; markers left ${ta.markers.length} / ${tb.markers.length}; runs: ${three.map((r) => r.output.trim().split('\n').pop() ?? '').join(' | ')}`,
    );
    assert.deepEqual(ta.markers, [], 'no marker left by the concurrent runs');
    assert.deepEqual(tb.markers, [], 'no marker left by the single run');
    assert.deepEqual(concurrent, alone, 'same rows, same cells, bit for bit');
    assert.deepEqual(sorted(ta.summaries), sorted(bruteSummaries(events, [60, 3600])), 'and both equal the summaries computed from the events');
  });
});
