// Rollups of spread ids: an id whose rows sit in several buckets (epochs that begin inside the data's
// range) is summed exactly by the job, by a bucket-mode backfill (the spread id a unit of its own) and
// by an id-mode backfill, all equal to the brute-force sums of the events.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runBackfill } from '../../../src/rollup/backfill.ts';
import { RollupJob } from '../../../src/rollup/job.ts';
import type { RollupSettings } from '../../../src/rollup/rollup-settings.ts';
import { testKeyspace, fixedSpread } from '../../support/keyspace.ts';
import { blocksOfRows, brutePoints, bruteSummaries, sorted, sortedRuns, summariesOfRows, type Ev } from './brute.ts';
import { FakeHBase } from '../../support/fake-hbase.ts';
import { B, DAY0, HOUR, MIN, markEvents, randomEvents, readMetrics, settings, silentLog, writeEvents } from './job-fixture.ts';

const HOT = 'hot-1';
// K 2 from the second hour, K 4 from mid third hour (B = 4): the id's rows span 1, 2 and 4 buckets.
const SPREAD = {
  [HOT]: {
    epochs: [
      { since: DAY0 + 3 * HOUR, k: 2 },
      { since: DAY0 + 4 * HOUR + 30 * MIN, k: 4 },
    ],
    fence: null,
  },
};

function spreadSettings(extra: Partial<RollupSettings> = {}): RollupSettings {
  return settings(['1m', '1h'], { keyspace: testKeyspace(B, 'binary', 'entry', fixedSpread(SPREAD)), ...extra });
}

function eventsWithHotId(): Ev[] {
  const cold = randomEvents({ seed: 41, n: 300, ids: 6, from: DAY0 + 2 * HOUR, hours: 4 });
  const hot = randomEvents({ seed: 42, n: 500, ids: 1, from: DAY0 + 2 * HOUR, hours: 4 }).map((e) => ({ ...e, id: HOT }));
  // on both sides of each epoch's first ms
  const edges: Ev[] = [DAY0 + 3 * HOUR - 1, DAY0 + 3 * HOUR, DAY0 + 4 * HOUR + 30 * MIN - 1, DAY0 + 4 * HOUR + 30 * MIN].map((ts, i) => ({
    id: HOT,
    ts,
    metric: 'edge',
    value: i + 1,
  }));
  return [...cold, ...hot, ...edges];
}

void test('the hot id really is in several buckets', () => {
  const s = spreadSettings();
  const buckets = new Set(
    eventsWithHotId()
      .filter((e) => e.id === HOT)
      .map((e) => s.keyspace.dataBucket(s.keyspace.dataKey(e.id, e.ts))),
  );
  assert.equal(buckets.size, B, `buckets ${[...buckets].join(',')}`);
});

void test('job over a spread id = brute force; the same data unspread gives the same summaries', async () => {
  const events = eventsWithHotId();
  const expected = sorted(bruteSummaries(events, [60, 3600]));
  const points = sortedRuns(brutePoints(events, [60, 3600]));
  for (const s of [spreadSettings(), settings(['1m', '1h'])]) {
    const store = new FakeHBase();
    await writeEvents(store, s, events);
    await markEvents(store, s, events);
    const report = await new RollupJob({ store, settings: s, metrics: readMetrics(s).metrics, log: silentLog, now: () => DAY0 + 30 * 24 * HOUR }).run();
    assert.equal(report.ok, true);
    assert.deepEqual(sorted(summariesOfRows(store.rows(s.rollupTable))), expected);
    assert.deepEqual(
      sortedRuns(blocksOfRows(store.rows(s.rollupTable))),
      points,
      'point blocks: every point of each window, ascending, merged over the buckets',
    );
  }
});

void test('backfill with a spread id: bucket mode (spread id its own unit) and id mode = brute force', async () => {
  const s = spreadSettings({ pageRows: 6 });
  const events = eventsWithHotId();
  const expected = sorted(bruteSummaries(events, [60, 3600]));
  const allIds = [...new Set(events.map((e) => e.id))];
  for (const ids of [undefined, allIds, [HOT]]) {
    const store = new FakeHBase();
    await writeEvents(store, s, events);
    const done: string[] = [];
    const r = await runBackfill({ store, settings: s, params: { from: DAY0, to: DAY0 + 8 * HOUR, ids }, onIdDone: (id) => done.push(id) });
    assert.equal(r.status, 'finished');
    assert.equal(
      r.rowsScanned,
      new Set(events.filter((e) => ids === undefined || ids.includes(e.id)).map((e) => `${e.id}|${e.ts}`)).size,
      'each row read once',
    );
    assert.equal(done.filter((id) => id === HOT).length, 1, 'the hot id is summed once, not once per bucket');
    const want = expected.filter(([k]) => ids === undefined || ids.includes(k.split('|')[0] as string));
    assert.deepEqual(sorted(summariesOfRows(store.rows(s.rollupTable))), want, ids === undefined ? 'bucket mode' : `id mode ${ids.length}`);
    const wantPoints = sortedRuns(brutePoints(events, [60, 3600])).filter(([k]) => ids === undefined || ids.includes(k.split('|')[0] as string));
    assert.deepEqual(sortedRuns(blocksOfRows(store.rows(s.rollupTable))), wantPoints, 'and the same point blocks');
  }
});
