// Shared parts of the spread integration tests: settings that make epochs start seconds (not a minute)
// after a promotion, a paced producer of live events (ts = about now) with one hot id, and what the
// tables must hold, computed from the produced events and the registry alone.
import type { Keyspace } from '../../../src/keys/index.ts';
import { openKeyspace, tablesOf } from '../../../src/service/keyspace.ts';
import type { Config } from '../../../src/runtime/config.ts';
import { produceEvents, retryingRest, type Harness, type TestEvent } from '../../support/service-harness.ts';

/** Epochs 3 s after a promotion; registry refreshed every 200 ms; a promotion once "hot" passes 20 % of ≥ 300 writes. */
export const SPREAD_SETS = [
  'keys.spread.leadMs=3000',
  'keys.spread.refreshMs=200',
  'keys.spread.clockToleranceMs=0',
  'keys.spread.minShare=0.2',
  'keys.spread.minEvents=300',
  'metrics.hotIdsWindowMs=5000',
  'metrics.hotIdsCapacity=64',
  'rollup.windows=["5s","1m"]',
  'rollup.graceMs=0',
  'rollup.markerSettleMs=0',
  'rollup.intervalMs=3600000',
] as const;

export const HOT = 'hot';

/** The i-th event of the stream: half of them "hot" (tag site=h), the rest 20 cold ids; metrics alternate. */
export function streamEvent(i: number, ts: number): TestEvent {
  const hot = i % 2 === 0;
  const id = hot ? HOT : `cold-${(i >> 1) % 20}`;
  return { id, ts, metric: i % 3 === 0 ? 'temp' : 'hum', value: (i % 97) / 4, tags: { site: hot ? 'h' : `s${i % 3}` } };
}

/**
 * Produces live events (ts ≈ now, strictly increasing by 5 ms) about `rate` per second until `until()`
 * is true; returns them. Acknowledged by the broker (acks = all) before it returns.
 */
export async function produceLive(
  h: Harness,
  rate: number,
  until: (produced: readonly TestEvent[]) => boolean | Promise<boolean>,
  start = 0,
): Promise<TestEvent[]> {
  const out: TestEvent[] = [];
  let ts = Date.now();
  let i = start;
  while (!(await until(out))) {
    const batch: TestEvent[] = [];
    for (let n = 0; n < Math.max(1, Math.round(rate / 10)); n++) {
      ts = Math.max(ts + 5, Date.now());
      batch.push(streamEvent(i++, ts));
    }
    await produceEvents(h, batch);
    out.push(...batch);
    await new Promise((r) => setTimeout(r, 100));
  }
  return out;
}

/** The registry as it is now, and the keyspace over it. */
export function registryNow(h: Harness, cfg: Config): Promise<Awaited<ReturnType<typeof openKeyspace>>> {
  return retryingRest('read the registry', () => openKeyspace(cfg, tablesOf(cfg), h.rest));
}

/** Every data row key the events call for (hex, sorted): one per (id, ts), in the bucket its epoch gives. */
export function expectedDataKeys(ks: Keyspace, events: readonly TestEvent[]): string[] {
  return [...new Set(events.map((e) => ks.dataKey(e.id, e.ts).toString('hex')))].sort();
}

/** Every index row key the events call for (tag site, same spread offset as the data row). */
export function expectedIndexKeys(ks: Keyspace, events: readonly TestEvent[]): string[] {
  const keys = new Set<string>();
  for (const e of events) {
    const site = e.tags?.['site'];
    if (site !== undefined) keys.add(ks.indexKey({ indexName: 'site', value: site, ts: e.ts, id: e.id }, ks.offsetOf(e.id, e.ts)).toString('hex'));
  }
  return [...keys].sort();
}

/** Row keys of a table (hex, sorted) and its cell count. */
export async function tableRows(h: Harness, table: string): Promise<{ keys: string[]; cells: number }> {
  return retryingRest(`scan ${table}`, async () => {
    const keys: string[] = [];
    let cells = 0;
    for await (const row of h.rest.scan(table, { batch: 5000 })) {
      keys.push(row.row.toString('hex'));
      cells += row.cells.length;
    }
    return { keys: keys.sort(), cells };
  });
}

/** The events' rows of one id as a reader returns them: newest first, metrics of one (id, ts) together. */
export function expectedRowsOf(
  events: readonly TestEvent[],
  id: string,
  from = 0,
  to = Number.MAX_SAFE_INTEGER,
): { ts: number; metrics: Record<string, number> }[] {
  const rows = new Map<number, Record<string, number>>();
  for (const e of events) {
    if (e.id !== id || e.ts < from || e.ts >= to) continue;
    rows.set(e.ts, { ...(rows.get(e.ts) ?? {}), [e.metric]: e.value });
  }
  return [...rows].sort((a, b) => b[0] - a[0]).map(([ts, metrics]) => ({ ts, metrics }));
}
