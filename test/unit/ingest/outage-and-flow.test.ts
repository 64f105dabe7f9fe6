// OutageWatch (time since the oldest unacknowledged write, not failure counts), FlowControl (the
// queued-record budget and pause reasons) and the lag arithmetic, on plain values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OutageWatch } from '../../../src/ingest/outage-watch.ts';
import { FlowControl } from '../../../src/ingest/flow-control.ts';
import { LagMonitor, partitionLag, type OffsetsSource } from '../../../src/ingest/lag-monitor.ts';

void test('outage is declared by the age of the oldest unacknowledged write, without any failure', () => {
  const clock = { t: 0 };
  const watch = new OutageWatch({ deadlineMs: 10_000, now: () => clock.t });
  const heard: string[] = [];
  watch.listen({ onOutage: (since) => heard.push(`outage@${since}`), onRecovered: () => heard.push('recovered') });
  const w = watch.begin(); // a request the gateway holds: no failure arrives
  clock.t = 9_999;
  watch.check();
  assert.deepEqual(heard, []);
  clock.t = 10_000;
  watch.check();
  assert.deepEqual(heard, ['outage@10000'], 'at the deadline, not when a 30 s request deadline expires');
  watch.check();
  assert.equal(heard.length, 1, 'declared once');
  watch.acknowledged();
  watch.end(w);
  assert.deepEqual(heard, ['outage@10000', 'recovered']);
});

void test('an acknowledgement restarts the clock of the writes still pending', () => {
  const clock = { t: 0 };
  const watch = new OutageWatch({ deadlineMs: 1000, now: () => clock.t });
  let outages = 0;
  watch.listen({
    onOutage: () => {
      outages++;
    },
    onRecovered: () => undefined,
  });
  watch.begin();
  const b = watch.begin();
  clock.t = 900;
  watch.acknowledged(); // HBase answers (another chunk): progress
  watch.end(b);
  clock.t = 1800;
  watch.check();
  assert.equal(outages, 0, '900 ms since the last acknowledgement');
  clock.t = 1900;
  watch.check();
  assert.equal(outages, 1);
  assert.equal(watch.unacknowledgedMs(), 1000);
});

void test('flow control: the budget bounds queued records, waiters are admitted in order', async () => {
  const changes: string[] = [];
  const flow = new FlowControl({ maxQueuedRows: 10, onPausedChange: (p, r) => changes.push(`${p ? 'pause' : 'resume'}:${r.join('+')}`) });
  await flow.acquire(6);
  let second = false;
  const waiting = flow.acquire(6).then(() => {
    second = true;
  });
  await new Promise((r) => setImmediate(r));
  assert.equal(second, false);
  assert.equal(flow.queued, 6);
  assert.deepEqual(changes, ['pause:queue_full']);
  flow.hold('hbase_outage');
  flow.giveBack(6);
  await waiting;
  assert.equal(flow.queued, 6);
  assert.deepEqual(changes, ['pause:queue_full'], 'still paused: HBase is down');
  flow.release('hbase_outage');
  assert.deepEqual(changes, ['pause:queue_full', 'resume:']);
});

void test('flow control: an aborted wait takes nothing', async () => {
  const flow = new FlowControl({ maxQueuedRows: 5, onPausedChange: () => undefined });
  await flow.acquire(5);
  const ac = new AbortController();
  const waiting = flow.acquire(5, ac.signal);
  ac.abort(new Error('draining'));
  await assert.rejects(waiting, /draining/);
  flow.giveBack(5);
  assert.equal(flow.queued, 0);
  assert.equal(flow.paused, false);
});

void test('lag: high watermark − committed, all retained records without a commit, never negative', () => {
  assert.equal(partitionLag({ partition: 0, high: '1000', low: '0' }, '400'), 600);
  assert.equal(partitionLag({ partition: 0, high: '1000', low: '100' }, '-1'), 900);
  assert.equal(partitionLag({ partition: 0, high: '1000', low: '100' }, undefined), 900);
  assert.equal(partitionLag({ partition: 0, high: '5', low: '0' }, '7'), 0);
});

void test('lag monitor reports owned partitions only and removes series after a rebalance', async () => {
  const source: OffsetsSource = {
    topicOffsets: () => Promise.resolve([0, 1, 2].map((p) => ({ partition: p, high: String(100 * (p + 1)), low: '0' }))),
    committed: () =>
      Promise.resolve([
        { partition: 0, offset: '50' },
        { partition: 1, offset: '-1' },
        { partition: 2, offset: '300' },
      ]),
  };
  const series = new Map<number, number>();
  const polls: boolean[] = [];
  const lag = new LagMonitor({
    source,
    sink: {
      set: (_t, p, v) => {
        series.set(p, v);
      },
      remove: (_t, p) => {
        series.delete(p);
      },
    },
    topic: 't',
    groupId: 'g',
    intervalMs: 60_000,
    onPoll: (ok) => polls.push(ok),
  });
  lag.assign([0, 1]);
  await lag.poll();
  assert.deepEqual([...series.entries()].sort(), [
    [0, 50],
    [1, 200],
  ]);
  lag.assign([1, 2]);
  assert.deepEqual([...series.keys()].sort(), [1], 'partition 0 belongs to another instance now');
  await lag.poll();
  assert.deepEqual([...series.entries()].sort(), [
    [1, 200],
    [2, 0],
  ]);
  await lag.stop();
  assert.equal(series.size, 0);
  assert.deepEqual(polls, [true, true]);
});
