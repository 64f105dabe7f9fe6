// The series API of the real service against the real stack: the compat data set (6 h, 3 sites × 4
// ids, gauges with gaps and a counter) goes through Kafka into the service, the rollup job summarises
// its windows, and every query of the compat suite is sent to the service's /api/query exactly as it
// was sent to OpenTSDB 2.4.1; each answer must equal the one the TSD gave (recorded in
// test/fixtures/opentsdb-answers/small/, `npm run compat:opentsdb -- --small --record`), series by
// series and point by point, or be a documented divergence. Then: suggest and look-up answer from the
// catalog, a query over the series limit is a 400 naming it, and a late event into a summarised hour
// is in the very next answer (the planner reads that bucket raw); a repeated query is answered by the
// answer memo, and neither it nor the window cache answers with windows the job has summarised again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { compareAnswers } from '../../../scripts/lib/compat/compare.ts';
import { SMALL_DATASET } from '../../../scripts/lib/compat/dataset.ts';
import { classify, parseDivergences } from '../../../scripts/lib/compat/divergences.ts';
import { readManifest, readRecorded } from '../../../scripts/lib/compat/recording.ts';
import { suite } from '../../../scripts/lib/compat/suite.ts';
import { uniqueName } from '../../support/env.ts';
import { produceEvents, startInProcess, waitFor, waitForCommittedAtEnd, waitForEvents } from '../../support/service-harness.ts';
import type { Service } from '../../../src/service/service.ts';
import { pino } from 'pino';
import { quietRollupMeters } from '../../../src/rollup/meters.ts';
import { RollupJob } from '../../../src/rollup/job.ts';
import { rollupSettings } from '../../../src/rollup/rollup-settings.ts';
import { keyspaceOf, tablesOf } from '../../../src/service/keyspace.ts';
import { hourlyMean, post, serviceWithDataset } from './helpers.ts';

const ROOT = join(import.meta.dirname, '../../..');

/** How many rollup runs the service has finished (tsingest_rollup_runs_total, all outcomes). */
async function rollupRuns(svc: Service): Promise<number> {
  const m = await svc.metrics.registry.getSingleMetric('tsingest_rollup_runs_total')?.get();
  return (m?.values ?? []).reduce((s, v) => s + v.value, 0);
}
const DIR = join(ROOT, 'test/fixtures/opentsdb-answers');

void test('series API: the compat suite answered as OpenTSDB 2.4.1 answered it, from raw points and from rollups', async (t) => {
  const manifest = readManifest(DIR, 'small');
  assert.deepEqual(manifest.dataset, SMALL_DATASET, 'the recording is of the small data set');
  const { h, svc, groupId } = await serviceWithDataset(t, 'tsdb', SMALL_DATASET);
  const port = svc.httpPort;
  const hourly = hourlyMean(SMALL_DATASET);

  const divergences = parseDivergences(JSON.parse(readFileSync(join(ROOT, 'docs/SERIES-API-DIVERGENCES.json'), 'utf8')));
  const failures: string[] = [];
  let documented = 0;
  const plans: string[] = [];
  for (const q of suite(SMALL_DATASET)) {
    const res = await fetch(`http://127.0.0.1:${port}${q.path}`, {
      method: q.method,
      ...(q.body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(q.body) }),
    });
    const text = await res.text();
    const ours = { status: res.status, body: JSON.parse(text) as unknown };
    plans.push(`${q.name}=${res.headers.get('x-tsingest-plan') ?? '-'}`);
    const c = classify(compareAnswers(q.name, readRecorded(DIR, 'small', q.name).answer, ours), divergences);
    documented += c.documented.length;
    failures.push(...c.failures.map((d) => `${d.query} ${d.kind} ${d.series ?? ''}: ${d.detail}`));
  }
  assert.equal(plans.length, manifest.queries.length, 'every recorded query was sent');
  assert.ok(plans.length >= 30, `a suite of at least 30 queries (${plans.length})`);
  t.diagnostic(`plans: ${plans.join(' ')}`);
  t.diagnostic(`documented differences: ${documented}`);
  assert.deepEqual(failures, [], "every answer equals OpenTSDB 2.4.1's");
  assert.ok(
    plans.some((p) => p.includes('rollup:3600s')),
    'some suite queries were answered from the rollups',
  );
  assert.ok(
    plans.some((p) => /=raw;blocks=[1-9]/.test(p)),
    'and some from raw points, read from the point blocks of summarised windows',
  );

  await t.test("suggest and look-up answer from the catalog; Grafana's health check is a 200", async () => {
    const suggest = await fetch(`http://127.0.0.1:${port}/api/suggest?type=metrics&q=&max=10`);
    assert.deepEqual(await suggest.json(), ['bytes', 'hum', 'temp']);
    const health = await fetch(`http://127.0.0.1:${port}/api/suggest?q=cpu&type=metrics`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), []);
    const tagv = await (await fetch(`http://127.0.0.1:${port}/api/suggest?type=tagv&q=n0&max=10`)).json();
    assert.deepEqual(tagv, ['n01', 'n02', 'n03', 'n04']);
    const lookup = (await (await fetch(`http://127.0.0.1:${port}/api/search/lookup?m=temp{site=*}&limit=100`)).json()) as {
      results: { tags: Record<string, string> }[];
      totalResults: number;
    };
    assert.equal(lookup.totalResults, 12);
    assert.deepEqual([...new Set(lookup.results.map((r) => r.tags['site']))].sort(), ['north', 'south', 'west']);
  });

  await t.test('limits: a sub-query over series.maxSeries is a 400 naming it', async () => {
    const svc2 = await startInProcess(h, [`kafka.groupId=${uniqueName('it-tsdb-l')}`, 'http.port=0', 'series.maxSeries=3']);
    // stopped here: its own rollup job would race the late-event test below
    const r = await post(svc2.httpPort, '/api/query', {
      start: SMALL_DATASET.startMs,
      end: SMALL_DATASET.startMs + 3_600_000,
      queries: [{ aggregator: 'sum', metric: 'temp' }],
    }).finally(() => svc2.stop('test'));
    assert.equal(r.status, 400);
    assert.match(JSON.stringify(r.body), /series\.maxSeries/);
  });
  await t.test('a late event into a summarised hour is in the next answer (that bucket is read raw)', async () => {
    // The first service re-summarises every 2 s, which could close the late event's marker before the
    // query reads it; so it stops, and one that rolls up once at start and then not for an hour takes
    // over its group. After that one run, the late event's hour is dirty until the query has read it.
    await svc.stop('test');
    await waitForCommittedAtEnd(h, groupId);
    const quiet = await startInProcess(h, [`kafka.groupId=${groupId}`, 'http.port=0', 'rollup.intervalMs=3600000']);
    await waitFor("the quiet service's one rollup run", 60_000, async () => (await rollupRuns(quiet)) >= 1);
    const meanOfFirstHour = (body: unknown): number =>
      (body as { dps: Record<string, number | undefined> }[])[0]?.dps[String(SMALL_DATASET.startMs / 1000)] ?? Number.NaN;
    const before = await post(quiet.httpPort, '/api/query', hourly);
    assert.match(before.headers.get('x-tsingest-plan') ?? '', /^rollup:3600s;raw-buckets=0(;|$)/, 'every hour summarised before the late event');
    const beforeAgain = await post(quiet.httpPort, '/api/query', hourly);
    assert.match(beforeAgain.headers.get('x-tsingest-plan') ?? '', /;answer=memo$/, 'the same query again: the kept answer, after its probe');
    assert.deepEqual(beforeAgain.body, before.body);
    const rawFirstHour = {
      start: SMALL_DATASET.startMs,
      end: SMALL_DATASET.startMs + 3_599_999,
      msResolution: true,
      queries: [{ aggregator: 'sum', metric: 'temp', filters: [{ type: 'literal_or', tagk: 'id', filter: 'n01', groupBy: false }] }],
    };
    const rawBefore = await post(quiet.httpPort, '/api/query', rawFirstHour);
    assert.match(
      rawBefore.headers.get('x-tsingest-plan') ?? '',
      /^raw;blocks=[1-9][0-9]*;raw-ranges=0$/,
      'raw points of the summarised hour from its point block',
    );
    // A range that holds part of the summarised hour (a downsampled query scans from its start, not from
    // the hour's): the hour's block, cut to the part, with no data-table range.
    type Dps = { dps: Record<string, number> }[];
    const [pFrom, pTo] = [SMALL_DATASET.startMs + 60_000, SMALL_DATASET.startMs + 1_800_000];
    const partOf = (downsample: string): Record<string, unknown> => ({
      ...rawFirstHour,
      start: pFrom,
      end: pTo - 1,
      queries: rawFirstHour.queries.map((q) => ({ ...q, downsample })),
    });
    const wholeDps = (rawBefore.body as Dps)[0]?.dps ?? {};
    const inPart = Object.entries(wholeDps).filter(([k]) => Number(k) >= pFrom && Number(k) < pTo);
    assert.ok(inPart.length > 0 && inPart.length < Object.keys(wholeDps).length, 'the part holds some of the hour, not all');
    const minuteSums = new Map<string, number>();
    for (const [k, v] of inPart) {
      const m = String(Number(k) - (Number(k) % 60_000));
      minuteSums.set(m, (minuteSums.get(m) ?? 0) + v);
    }
    const near = (got: Record<string, number>, want: ReadonlyMap<string, number>): boolean =>
      Object.keys(got).length === want.size && [...want].every(([k, v]) => Math.abs((got[k] ?? Number.NaN) - v) < 1e-6);
    const minutesBefore = await post(quiet.httpPort, '/api/query', partOf('1m-sum'));
    assert.match(minutesBefore.headers.get('x-tsingest-plan') ?? '', /^raw;blocks=1;raw-ranges=0$/, 'part of a summarised hour from its block');
    assert.ok(near((minutesBefore.body as Dps)[0]?.dps ?? {}, minuteSums), `1m-sum of the part: ${JSON.stringify(minutesBefore.body)}`);
    const foldBefore = await post(quiet.httpPort, '/api/query', partOf('0all-sum'));
    assert.match(foldBefore.headers.get('x-tsingest-plan') ?? '', /^raw;blocks=1;raw-ranges=0(;|$)/, 'a 0all fold over the part: the block, cut');
    const total = inPart.reduce((n, [, v]) => n + v, 0);
    assert.ok(near((foldBefore.body as Dps)[0]?.dps ?? {}, new Map([[String(pFrom), total]])), `0all-sum of the part: ${JSON.stringify(foldBefore.body)}`);
    const late = { id: 'n01', ts: SMALL_DATASET.startMs + 17, metric: 'temp', value: 1000, tags: { site: 'north' } };
    await produceEvents(h, [late]);
    await waitForEvents(quiet, 1, 60_000);
    const after = await post(quiet.httpPort, '/api/query', hourly);
    assert.match(after.headers.get('x-tsingest-plan') ?? '', /^rollup:3600s;raw-buckets=[1-9]/);
    assert.doesNotMatch(after.headers.get('x-tsingest-plan') ?? '', /answer=memo/, 'a pending marker: not the kept answer');
    const moved = meanOfFirstHour(after.body);
    assert.ok(moved > meanOfFirstHour(before.body), `the hour's mean took the late value in (${meanOfFirstHour(before.body)} → ${moved})`);
    const rawAfter = await post(quiet.httpPort, '/api/query', rawFirstHour);
    assert.match(
      rawAfter.headers.get('x-tsingest-plan') ?? '',
      /^raw;blocks=\d+;raw-ranges=[1-9]/,
      'the marked hour read from the data table, not its stale block',
    );
    // the late point lies before the part, but its marker covers the hour: the part is read from the data table
    const minutesAfter = await post(quiet.httpPort, '/api/query', partOf('1m-sum'));
    assert.match(minutesAfter.headers.get('x-tsingest-plan') ?? '', /^raw;blocks=0;raw-ranges=1$/, "the marked hour's part read from the data table");
    assert.deepEqual(minutesAfter.body, minutesBefore.body);
    const dps = (rawAfter.body as { dps: Record<string, number> }[])[0]?.dps ?? {};
    assert.equal(dps[String(late.ts)], 1000, 'the late point is in the raw answer');
    assert.equal(
      Object.keys(dps).length,
      Object.keys((rawBefore.body as { dps: Record<string, number> }[])[0]?.dps ?? {}).length + 1,
      'and every other point of the hour once',
    );

    // The job summarises the hour again (its put, then its bump of the window generation, then the
    // marker goes): the windows the service keeps from before the late event must not answer.
    const cfg = h.config([`kafka.groupId=${groupId}`, 'rollup.markerSettleMs=0']);
    const job = new RollupJob({
      store: h.rest,
      settings: rollupSettings(cfg, keyspaceOf(cfg), tablesOf(cfg)),
      metrics: quietRollupMeters(),
      log: pino({ level: 'silent' }),
    });
    const report = await job.run();
    assert.ok(report.ok && report.written > 0, JSON.stringify(report));
    const resummarised = await post(quiet.httpPort, '/api/query', hourly);
    const plan = resummarised.headers.get('x-tsingest-plan') ?? '';
    assert.match(plan, /^rollup:3600s;raw-buckets=0(;|$)/, 'summarised for good again');
    assert.doesNotMatch(plan, /answer=memo/, 'a new generation: not the answer kept before the late event');
    const now = meanOfFirstHour(resummarised.body);
    assert.ok(Math.abs(now - moved) <= 1e-9 * Math.abs(moved), `the new summary holds the late value (${now} vs ${moved} read raw)`);
    const kept = await post(quiet.httpPort, '/api/query', hourly);
    assert.match(kept.headers.get('x-tsingest-plan') ?? '', /;answer=memo$/);
    assert.deepEqual(kept.body, resummarised.body);
  });
});
