// Pure (but for a memo of the last tags cell): HBase rows → result items (data rows → events, summary rows → rollups).
import { decodeDataRow, decodeTags } from '../events/cells.ts';
import type { Row } from '../hbase/types.ts';
import type { Keyspace } from '../keys/index.ts';
import { meanOf } from '../rollup/summary.ts';
import { windowCellsOf, windowSummary } from '../rollup/window-content.ts';
import type { WindowSize } from '../rollup/windows.ts';
import type { EventItem, MetricRollup, RollupItem } from './types.ts';

const DAY_MS = 86_400_000;
const PAD3 = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));
// The date part of the last day formatted ('2024-11-22T'): the times of one read share a few days.
let dayStart = Number.NaN;
let dayEnd = Number.NaN; // exclusive; the Date range ends at 8.64e15 ms
let dayPrefix = '';

/** Date.toISOString of epoch ms (String(ms) beyond the Date range), the date part kept from the last call. */
export function isoOf(ms: number): string {
  if (!(ms >= dayStart && ms < dayEnd)) {
    const d = new Date(ms);
    if (Number.isNaN(d.getTime())) return String(ms);
    if (!Number.isInteger(ms)) return d.toISOString();
    const iso = d.toISOString();
    dayStart = Math.floor(ms / DAY_MS) * DAY_MS;
    dayEnd = Math.min(dayStart + DAY_MS, 8.64e15 + 1);
    dayPrefix = iso.slice(0, iso.indexOf('T') + 1);
  }
  let t = ms - dayStart;
  const h = Math.floor(t / 3_600_000);
  t -= h * 3_600_000;
  const m = Math.floor(t / 60_000);
  t -= m * 60_000;
  const sec = Math.floor(t / 1000);
  return `${dayPrefix}${(PAD3[h] as string).slice(1)}:${(PAD3[m] as string).slice(1)}:${(PAD3[sec] as string).slice(1)}.${PAD3[t - sec * 1000] as string}Z`;
}

// The tags cell of consecutive rows is mostly the same bytes (one id's rows, one site's events): the
// last one decoded is kept (a copy of its bytes, not a view that would keep a whole response alive).
let lastTagsBytes: Buffer | null = null;
let lastTags: Readonly<Record<string, string>> = Object.freeze({});

/** decodeTags, answered from the last call when the bytes are the same (its result is frozen). */
export function tagsOfCell(bytes: Uint8Array): Readonly<Record<string, string>> {
  if (lastTagsBytes?.equals(bytes) === true) return lastTags;
  const tags = decodeTags(bytes);
  lastTagsBytes = Buffer.from(bytes);
  lastTags = tags;
  return tags;
}

/** A data row as an event item (all metrics of the row and its tags). */
export function eventItemOf(row: Row, keyspace: Keyspace): EventItem {
  const { id, ts } = keyspace.decodeDataKey(row.row);
  const { metrics, tags } = decodeDataRow(row.cells, tagsOfCell);
  return { id, ts, time: isoOf(ts), metrics, tags };
}

/** A summary row as a rollup item; null when it holds no metric cell (or not the asked one). A block standing for its summary answers for it. */
export function rollupItemOf(
  row: Row,
  at: { readonly window: WindowSize; readonly keyspace: Keyspace; readonly blockFamily: string | null },
  metric: string | null,
): RollupItem | null {
  const { window } = at;
  const key = at.keyspace.decodeRollupKey(row.row);
  const metrics: [string, MetricRollup][] = [];
  for (const [name, cells] of windowCellsOf(row.cells, at.blockFamily)) {
    if (metric !== null && name !== metric) continue;
    const s = windowSummary(cells, name, key.windowStart, window.ms).summary;
    const mean = meanOf(s);
    metrics.push([
      name,
      {
        count: s.count,
        sum: s.sum,
        min: s.min,
        max: s.max,
        mean: Number.isNaN(mean) ? null : mean,
        first: s.first,
        firstTs: s.firstTs,
        last: s.last,
        lastTs: s.lastTs,
      },
    ]);
  }
  if (metrics.length === 0) return null;
  return { id: key.id, window: window.name, windowStart: key.windowStart, windowEnd: key.windowStart + window.ms, metrics: Object.fromEntries(metrics) };
}
