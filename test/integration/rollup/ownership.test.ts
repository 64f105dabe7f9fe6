// Rollup work shared out between instances (docs/ROLLUPS.md, "Ownership"), with real child processes
// on the real stack: three instances of one group on 16 salt buckets, each rolling up every 2 s. Ids
// are picked so that every bucket holds as many (8 ids each): the work of a bucket is then the same
// everywhere, and windows per instance measure the share it owns. Phases: a, b and c stable (each
// must do at most 0.4 of the windows, none twice); b killed with kill -9 (a and c must own all of b's
// buckets within the session timeout + a rebalance, and roll up what came meanwhile); d joins without
// a restart of the others (it gets a share); `tsingest rollup run` beside them takes a share too. At
// the end, every summary equals the one computed from the events, and no marker is left. Each
// instance's job runs on its rollup thread (rollup.thread): its requests go through that client.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseMetrics, sumOf } from '../../../scripts/lib/bench/child.ts';
import { scrapeMetrics } from '../../../scripts/lib/bench/metrics-text.ts';
import { rollupSettings } from '../../../src/rollup/rollup-settings.ts';
import { keyspaceOf, tablesOf } from '../../../src/service/keyspace.ts';
import { uniqueName } from '../../support/env.ts';
import { createHarness, waitFor, type Harness, type TestEvent } from '../../support/service-harness.ts';
import { bruteSummaries, sorted } from '../../unit/rollup/brute.ts';
import { rollupRun } from '../service/scale-out-checks.ts';
import { Instances } from '../service/scale-out-helpers.ts';
import { readRollupTable } from './helpers.ts';

const B = 16;
const PER_BUCKET = 8;
const SESSION_MS = 6000;
const INTERVAL_MS = 2000;
const HOUR = 3_600_000;
const MIN = 60_000;

interface Scrape {
  readonly owned: ReadonlySet<number>;
  readonly windows: number;
  readonly remarked: number;
  /** attempts of the job's own HBase client: it runs on the rollup thread (rollup.thread, the default) */
  readonly threadRequests: number;
}

async function scrape(port: number): Promise<Scrape | null> {
  const text = await scrapeMetrics(port);
  if (text === null) return null;
  const samples = parseMetrics(text);
  const owned = new Set(samples.filter((s) => s.name === 'tsingest_rollup_bucket_owned' && s.value === 1).map((s) => Number(s.labels['bucket'])));
  const threadRequests = samples
    .filter((s) => s.name === 'tsingest_hbase_gateway_requests_total' && s.labels['client'] === 'rollup')
    .reduce((n, s) => n + s.value, 0);
  return {
    owned,
    windows: sumOf(samples, 'tsingest_rollup_windows_written_total'),
    remarked: sumOf(samples, 'tsingest_rollup_markers_remarked_total'),
    threadRequests,
  };
}

/** Each live instance's scrape, by name (throws when one does not answer). */
async function scrapeAll(inst: Instances): Promise<Map<string, Scrape>> {
  const out = new Map<string, Scrape>();
  for (const i of inst.live()) {
    const s = await scrape(i.port);
    if (s === null) throw new Error(`instance ${i.name}: /metrics did not answer`);
    out.set(i.name, s);
  }
  return out;
}

/** Waits until the live instances own every bucket once between them, each a share; → name → owned buckets. */
async function waitForOwners(inst: Instances, what: string, timeoutMs = 90_000): Promise<Map<string, number[]>> {
  let view = new Map<string, number[]>();
  await waitFor(
    `${what}: every bucket owned by exactly one live instance`,
    timeoutMs,
    async () => {
      inst.check();
      const all = await scrapeAll(inst).catch(() => null);
      if (all === null) return false;
      view = new Map([...all].map(([n, s]) => [n, [...s.owned].sort((x, y) => x - y)]));
      const owned = [...view.values()].flat().sort((x, y) => x - y);
      // and every live instance has joined: each owns a share
      return owned.join() === Array.from({ length: B }, (_v, b) => b).join() && [...view.values()].every((b) => b.length > 0);
    },
    200,
  );
  return view;
}

/** 8 ids per salt bucket (ids whose bucket is full are skipped). */
function balancedIds(h: Harness): string[] {
  const ks = keyspaceOf(h.config(['kafka.groupId=unused']));
  const per = new Map<number, string[]>();
  for (let n = 0; [...per.values()].reduce((s, l) => s + l.length, 0) < B * PER_BUCKET; n++) {
    const id = `own-${n}`;
    const b = ks.dataKey(id, 0)[0] as number;
    const list = per.get(b) ?? [];
    if (list.length < PER_BUCKET) per.set(b, [...list, id]);
  }
  return [...per.values()].flat();
}

void test('rollup buckets shared by three instances through a Kafka group: a share each, none twice, takeover after kill -9, a join, cron beside them', async (t) => {
  const h = await createHarness(t, { prefix: 'own', partitions: 4, sets: [`keys.saltBuckets=${B}`, 'rollup.windows=["1m","1h"]', 'rollup.graceMs=0'] });
  const group = uniqueName('it-own-g');
  // markers taken once 3 s old: a batch is written by then, so ingest never re-marks a window under a recompute
  const inst = new Instances(h, [
    `kafka.groupId=${group}`,
    `rollup.intervalMs=${INTERVAL_MS}`,
    'rollup.markerSettleMs=3000',
    `rollup.owners.sessionTimeoutMs=${SESSION_MS}`,
  ]);
  for (const name of ['a', 'b', 'c', 'd']) await inst.add(name);
  const ids = balancedIds(h);
  const producer = h.kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  h.defer(() => producer.disconnect());
  const all: TestEvent[] = [];
  const base = Math.floor(Date.now() / HOUR) * HOUR - 6 * HOUR;
  /** Batch k: each id, 3 events in each of 3 minutes of hour k (closed windows). */
  const produce = async (k: number): Promise<number> => {
    const batch: TestEvent[] = ids.flatMap((id, j) =>
      [0, 1, 2].flatMap((m) => [0, 1, 2].map((e) => ({ id, ts: base + k * HOUR + m * MIN + e * 1000 + (j % 7), metric: 'temp', value: (j + m * 3 + e) / 4 }))),
    );
    await producer.send({ topic: h.names.topic, acks: -1, messages: batch.map((e) => ({ key: e.id, value: JSON.stringify(e) })) });
    all.push(...batch);
    return ids.length * 3 + ids.length; // 1 m windows + 1 h windows of the batch
  };
  const cfg = h.config([`kafka.groupId=${group}`]);
  const r = { h, cfg, s: rollupSettings(cfg, keyspaceOf(cfg), tablesOf(cfg)) };
  const settled = async (what: string): Promise<void> => {
    await waitFor(
      `${what}: every event summarised, no marker left`,
      120_000,
      async () => {
        inst.check();
        const st = await readRollupTable(r);
        return st.markers.length === 0 && st.summaries.size === bruteSummaries(all, [60, 3600]).size;
      },
      500,
    );
  };
  const shares = (before: Map<string, Scrape>, after: Map<string, Scrape>): { windows: Map<string, number>; remarked: number } => {
    const windows = new Map([...after].map(([n, s]) => [n, s.windows - (before.get(n)?.windows ?? 0)]));
    const remarked = [...after].reduce((x, [n, s]) => x + s.remarked - (before.get(n)?.remarked ?? 0), 0);
    return { windows, remarked };
  };
  const line: string[] = [];

  for (const n of ['a', 'b', 'c']) inst.start(n);
  const owners3 = await waitForOwners(inst, 'a, b and c');
  line.push(`a, b, c: ${[...owners3].map(([n, b]) => `${n}=[${b.join(',')}]`).join(' ')}`);

  await t.test('three stable instances: each computes at most 0.4 of the windows, none computed twice', async () => {
    const before = await scrapeAll(inst);
    const expected = await produce(0);
    await settled('phase 1');
    const { windows, remarked } = shares(before, await scrapeAll(inst));
    const total = [...windows.values()].reduce((s, x) => s + x, 0);
    line.push(`phase 1: windows ${[...windows].map(([n, w]) => `${n} ${w}`).join(', ')} of ${total} (${expected} distinct); remarked ${remarked}`);
    assert.equal(total, expected, 'every window computed once: the sum over instances = the distinct windows');
    assert.equal(remarked, 0);
    for (const [n, w] of windows) assert.ok(w <= 0.4 * total, `${n} computed ${w} of ${total} (> 0.4)`);
    for (const [n, sc] of await scrapeAll(inst)) assert.ok(sc.threadRequests > 0, `${n}: the job's requests went through the rollup thread's client`);
  });

  await t.test('kill -9 of b: a and c own its buckets within the session timeout + a rebalance, and roll up what came meanwhile', async () => {
    const before = await scrapeAll(inst);
    const t0 = Date.now();
    await inst.kill9('b');
    const expected = await produce(1);
    const owners = await waitForOwners(inst, 'after the kill of b');
    const tookOver = Date.now() - t0;
    await settled('phase 2');
    const done = Date.now() - t0;
    const { windows } = shares(before, await scrapeAll(inst));
    const total = [...windows.values()].reduce((s, x) => s + x, 0);
    line.push(
      `kill -9 b: a, c own every bucket after ${tookOver} ms (${[...owners].map(([n, b]) => `${n}=[${b.join(',')}]`).join(' ')}); batch 2 summarised ${done} ms after the kill; windows ${[...windows].map(([n, w]) => `${n} ${w}`).join(', ')} of ${expected}`,
    );
    assert.ok(tookOver <= SESSION_MS + 10_000, `takeover ${tookOver} ms ≤ session timeout ${SESSION_MS} ms + 10 s`);
    assert.ok(total >= expected, 'batch 2 summarised by a and c');
  });

  await t.test('d joins: it gets a share without a restart of the others, and does it', async () => {
    inst.start('d');
    const owners = await waitForOwners(inst, 'a, c and d');
    assert.ok((owners.get('d')?.length ?? 0) > 0, 'd owns buckets');
    const before = await scrapeAll(inst);
    const expected = await produce(2);
    await settled('phase 3');
    const { windows, remarked } = shares(before, await scrapeAll(inst));
    const total = [...windows.values()].reduce((s, x) => s + x, 0);
    line.push(
      `d joined: ${[...owners].map(([n, b]) => `${n}=[${b.join(',')}]`).join(' ')}; windows ${[...windows].map(([n, w]) => `${n} ${w}`).join(', ')} of ${total}; remarked ${remarked}`,
    );
    assert.equal(total, expected);
    assert.equal(remarked, 0);
    assert.ok((windows.get('d') ?? 0) > 0, 'd computed windows');
    for (const [n, w] of windows) assert.ok(w <= 0.4 * total, `${n} computed ${w} of ${total} (> 0.4)`);
  });

  await t.test('tsingest rollup run beside the instances takes a share of the buckets, not all of them', async () => {
    await produce(3);
    const run = await rollupRun(h, [`kafka.groupId=${group}`, 'rollup.markerSettleMs=0', `rollup.owners.sessionTimeoutMs=${SESSION_MS}`]);
    assert.equal(run.code, 0, run.output);
    const m = /buckets worked (\d+) of (\d+)/.exec(run.output);
    line.push(`rollup run beside a, c, d: ${m?.[0] ?? run.output.trim().split('\n').pop() ?? ''}`);
    assert.ok(m !== null && Number(m[1]) < B && Number(m[2]) === B, `a share of the buckets: ${m?.[0] ?? run.output}`);
    await settled('phase 4');
    assert.deepEqual(sorted((await readRollupTable(r)).summaries), sorted(bruteSummaries(all, [60, 3600])), 'every summary = the one computed from the events');
  });

  await t.test('the rollup lag returns to 0 on every instance', async () => {
    await waitFor(
      'tsingest_rollup_lag_seconds 0 on a, c and d',
      60_000,
      async () => {
        const texts = await Promise.all(inst.live().map((i) => scrapeMetrics(i.port)));
        return texts.every((x) => x !== null && sumOf(parseMetrics(x), 'tsingest_rollup_lag_seconds') === 0);
      },
      500,
    );
  });

  for (const n of ['a', 'c', 'd']) await inst.stop(n);
  for (const l of line) t.diagnostic(l);
});
