// Shared setup of the read-path integration tests: per-test tables and topics (createHarness), events
// written by the REAL ingest service from Kafka, one data row deleted afterwards and one row's tags
// changed by a later event (two dangling index entries), and summary rows written straight into the
// rollup table. Expected answers are computed here from the produced events, independently of
// src/reads-v1.
import { column } from '../../../src/hbase/codec.ts';
import { encodeDataKey, encodeMarkerKey, encodeRollupKey } from '../../../src/keys/index.ts';
import { encodeSummary } from '../../../src/rollup/summary.ts';
import type { Config } from '../../../src/runtime/config.ts';
import { uniqueName } from '../../support/env.ts';
import { createHarness, produceEvents, retryingRest, startInProcess, waitForEvents, type Harness, type TestEvent } from '../../support/service-harness.ts';

export const BASE = 1_732_262_400_000; // 2024-11-22T08:00:00Z
export const HOUR = 3_600_000;
/** rollup windows written by the fixture start here (10 h before BASE's hour) */
export const ROLLUP_FROM = BASE - (BASE % HOUR) - 10 * HOUR;
export const ROLLUP_WINDOWS = 6;

export interface ModelRow {
  readonly id: string;
  readonly ts: number;
  readonly metrics: Record<string, number>;
  tags: Record<string, string>;
}

export interface ExpectedRollup {
  readonly windowStart: number;
  readonly metrics: Record<
    string,
    { count: number; sum: number; min: number; max: number; mean: number; first: number; firstTs: number; last: number; lastTs: number }
  >;
}

export interface ReadFixture {
  readonly h: Harness;
  readonly cfg: Config;
  readonly events: readonly TestEvent[];
  /** data rows as they are in HBase now, keyed `${id}\u0000${ts}` */
  readonly rows: ReadonlyMap<string, ModelRow>;
  /** every index entry ingest wrote: (site value, ts, id) */
  readonly indexEntries: readonly { value: string; ts: number; id: string }[];
  readonly rollups: readonly ExpectedRollup[];
}

function datasets(): { first: TestEvent[]; later: TestEvent[] } {
  const first: TestEvent[] = [];
  for (let i = 0; i < 30; i++)
    first.push({ id: 'dev1', ts: BASE + i * 1000, metric: i % 3 === 0 ? 'hum' : 'temp', value: i + 0.5, tags: { site: i % 2 === 0 ? 'hq' : 'lab' } });
  for (let i = 0; i < 12; i++) first.push({ id: 'dev10', ts: BASE + i * 1000, metric: 'temp', value: 100 + i, tags: { site: 'hq' } });
  for (let i = 0; i < 6; i++) first.push({ id: '设备-7', ts: BASE + 500 + i * 2000, metric: 'temp', value: -i - 0.25, tags: { site: '工厂-1' } });
  for (let k = 0; k < 24; k++) {
    for (let j = 0; j < 2; j++)
      first.push({
        id: `node-${k}`,
        ts: BASE + 60_000 + (k % 6) * 100 + j * 10_000,
        metric: 'load',
        value: k + j / 10,
        tags: { site: 'hq', rack: `r${k % 3}` },
      });
  }
  // the same (id, ts) as node-3's first event, later: the row's tags now say site=moved
  const later: TestEvent[] = [{ id: 'node-3', ts: BASE + 60_000 + 300, metric: 'temp', value: 7, tags: { site: 'moved' } }];
  return { first, later };
}

const rowKey = (id: string, ts: number): string => `${id}\u0000${ts}`;

function model(events: readonly TestEvent[]): { rows: Map<string, ModelRow>; indexEntries: { value: string; ts: number; id: string }[] } {
  const rows = new Map<string, ModelRow>();
  const entries = new Map<string, { value: string; ts: number; id: string }>();
  for (const e of events) {
    const k = rowKey(e.id, e.ts);
    const row = rows.get(k) ?? { id: e.id, ts: e.ts, metrics: {}, tags: {} };
    row.metrics[e.metric] = e.value;
    if (e.tags !== undefined && Object.keys(e.tags).length > 0) row.tags = { ...e.tags };
    rows.set(k, row);
    const site = e.tags?.['site'];
    if (site !== undefined) entries.set(`${site}\u0000${k}`, { value: site, ts: e.ts, id: e.id });
  }
  return { rows, indexEntries: [...entries.values()] };
}

/** Newest first, then id by UTF-8 bytes: the order of the data key within an id and of index keys. */
export function newestFirst(a: { ts: number; id: string }, b: { ts: number; id: string }): number {
  return b.ts - a.ts || Buffer.compare(Buffer.from(a.id, 'utf8'), Buffer.from(b.id, 'utf8'));
}

/** Index hits of site = value in [from, to) that still point at a row carrying that value. */
export function expectedByTag(f: ReadFixture, value: string, from = 0, to = Number.MAX_SAFE_INTEGER): ModelRow[] {
  return f.indexEntries
    .filter((x) => x.value === value && x.ts >= from && x.ts < to)
    .map((x) => f.rows.get(rowKey(x.id, x.ts)))
    .filter((r): r is ModelRow => r !== undefined && r.tags['site'] === value)
    .sort(newestFirst);
}

export function danglingOf(f: ReadFixture, value: string): number {
  return f.indexEntries.filter((x) => x.value === value).length - expectedByTag(f, value).length;
}

/** The rows of `id` in [from, to) (all by default), newest first; with `metric`, only that metric of the rows that have it. */
export function expectedRange(f: ReadFixture, id: string, range: { readonly from?: number; readonly to?: number; readonly metric?: string } = {}): ModelRow[] {
  const { from = 0, to = Number.MAX_SAFE_INTEGER, metric = null } = range;
  return [...f.rows.values()]
    .filter((r) => r.id === id && r.ts >= from && r.ts < to && (metric === null || metric in r.metrics))
    .map((r) => (metric === null ? r : { ...r, metrics: { [metric]: r.metrics[metric] ?? Number.NaN } }))
    .sort(newestFirst);
}

function rollupFixture(): ExpectedRollup[] {
  const out: ExpectedRollup[] = [];
  for (let w = 0; w < ROLLUP_WINDOWS; w++) {
    const windowStart = ROLLUP_FROM + w * HOUR;
    const metrics: ExpectedRollup['metrics'] = {};
    const series: Record<string, number[]> = { temp: [w, w + 1.5, w - 2] };
    if (w % 2 === 0) series['hum'] = [40 + w];
    for (const [name, values] of Object.entries(series)) {
      const sum = values.reduce((s, v) => s + v, 0);
      metrics[name] = {
        count: values.length,
        sum,
        min: Math.min(...values),
        max: Math.max(...values),
        mean: sum / values.length,
        first: values[0] ?? 0,
        firstTs: windowStart + 1000,
        last: values[values.length - 1] ?? 0,
        lastTs: windowStart + 1000 * values.length,
      };
    }
    out.push({ windowStart, metrics });
  }
  return out;
}

export async function readFixture(t: { after(fn: () => Promise<void>): void }, prefix: string): Promise<ReadFixture> {
  const h = await createHarness(t, { prefix, sets: ['rollup.enabled=false'] });
  const { first, later } = datasets();
  const svc = await startInProcess(h, [`kafka.groupId=${uniqueName(`it-${prefix}`)}`, 'http.port=0']);
  await produceEvents(h, first);
  await waitForEvents(svc, first.length);
  await produceEvents(h, later); // after the first batch is written: the later tags cell overwrites
  await waitForEvents(svc, first.length + later.length);
  await svc.stop('fixture written');
  const events = [...first, ...later];
  const { rows, indexEntries } = model(events);
  const cfg = h.config(['kafka.groupId=unused']);
  const B = cfg.keys.saltBuckets;

  // a lost data row: its hq index entry is now dangling
  const lost = first.find((e) => e.id === 'node-5');
  if (lost === undefined) throw new Error('fixture has no node-5');
  await retryingRest('delete data row', () => h.rest.deleteRow(h.names.data, encodeDataKey(lost, B)));
  rows.delete(rowKey(lost.id, lost.ts));

  const rollups = rollupFixture();
  const family = cfg.tables.rollup.family;
  await retryingRest('write summaries', () =>
    h.rest.put(h.names.rollup, [
      ...rollups.map((r) => ({
        row: encodeRollupKey({ id: 'dev1', windowSec: 3600, windowStart: r.windowStart }, B),
        cells: Object.entries(r.metrics).map(([name, m]) => ({ column: column(family, name), value: encodeSummary(m), timestamp: r.windowStart })),
      })),
      // a 1d summary of the same id, a summary of dev10 and a marker: none may show up in dev1's 1h reads
      {
        row: encodeRollupKey({ id: 'dev1', windowSec: 86_400, windowStart: ROLLUP_FROM - (ROLLUP_FROM % 86_400_000) }, B),
        cells: [
          {
            column: column(family, 'temp'),
            value: encodeSummary({ count: 1, sum: 1, min: 1, max: 1, first: 1, firstTs: ROLLUP_FROM, last: 1, lastTs: ROLLUP_FROM }),
          },
        ],
      },
      {
        row: encodeRollupKey({ id: 'dev10', windowSec: 3600, windowStart: ROLLUP_FROM }, B),
        cells: [
          {
            column: column(family, 'temp'),
            value: encodeSummary({ count: 1, sum: 9, min: 9, max: 9, first: 9, firstTs: ROLLUP_FROM, last: 9, lastTs: ROLLUP_FROM }),
          },
        ],
      },
      {
        row: encodeMarkerKey({ id: 'dev1', windowSec: 3600, windowStart: ROLLUP_FROM }, B),
        cells: [{ column: column(family, '\u0000m'), value: Buffer.alloc(16) }],
      },
    ]),
  );
  return { h, cfg, events, rows, indexEntries, rollups };
}

export interface Paged<T> {
  readonly items: T[];
  readonly pages: number[];
  readonly dangling: number;
}

/** Follows `next` until null; `fetch(cursor)` reads one page. */
export async function followPages<T>(
  fetch: (cursor: string | null) => Promise<{ items: T[]; next: string | null; dangling?: number | undefined }>,
): Promise<Paged<T>> {
  const items: T[] = [];
  const pages: number[] = [];
  let dangling = 0;
  let cursor: string | null = null;
  do {
    const page = await fetch(cursor);
    items.push(...page.items);
    pages.push(page.items.length);
    dangling += page.dangling ?? 0;
    cursor = page.next;
    if (pages.length > 200) throw new Error('pagination does not end');
  } while (cursor !== null);
  return { items, pages, dangling };
}

/** The comparable part of an event item / a model row. */
export function plain(x: { id: string; ts: number; metrics: Readonly<Record<string, number>>; tags: Readonly<Record<string, string>> }): {
  id: string;
  ts: number;
  metrics: Record<string, number>;
  tags: Record<string, string>;
} {
  return { id: x.id, ts: x.ts, metrics: { ...x.metrics }, tags: { ...x.tags } };
}
