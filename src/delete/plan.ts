/**
 * Pure: what `tsingest delete --id ID [--from T --to T]` scans and deletes in each table
 * (docs/DELETE.md).
 * Design notes: docs/DECISIONS.md#deleting-an-id
 */
import { InputError } from '../errors.ts';
import { TAGS_QUALIFIER } from '../events/cells.ts';
import { encodeId, indexScanRanges, prefixRange, TOUCH_WINDOW_SEC, type Keyspace, type RollupKeyParts, type ScanRange } from '../keys/index.ts';
import { LEGACY_QUALIFIER, VERSION_QUALIFIER } from '../rollup/marker.ts';
import type { WindowSize } from '../rollup/windows.ts';

/** [from, to) in epoch ms; null: all of the id's data, over all time. */
export type DeleteRange = { readonly from: number; readonly to: number } | null;

export interface DataScan {
  /** checkpoint unit name: `data/<bucket>` */
  readonly unit: string;
  readonly bucket: number;
  readonly range: ScanRange;
}

export function assertRange(range: DeleteRange): void {
  if (range === null) return;
  if (!Number.isSafeInteger(range.from) || !Number.isSafeInteger(range.to) || range.from < 0 || !(range.from < range.to)) {
    throw new InputError(`--from (${range.from}) must be a time before --to (${range.to})`, { field: '--from' });
  }
}

/** The scan of the id's rows in each of the B buckets (the whole prefix, or the events in [from, to)). */
export function dataScans(keyspace: Keyspace, id: string, range: DeleteRange): DataScan[] {
  assertRange(range);
  const bounds = range === null ? undefined : { fromTs: range.from, toTs: range.to - 1 };
  return keyspace.allBuckets().map((bucket) => ({ unit: `data/${bucket}`, bucket, range: keyspace.idRangeIn(id, bucket, bounds) }));
}

/** One cell as the scans return it. */
export interface CellLike {
  readonly qualifier: Buffer;
  readonly value: Buffer;
  readonly timestamp: number;
}

/** An index value an id's data row carries: the index rows to verify are found from these. */
export interface IndexedValue {
  readonly tag: string;
  readonly value: string;
}

/** The index rows a data row points at, and the (tag, value) pairs they are of. */
export function indexRowsOf(
  keyspace: Keyspace,
  indexTags: readonly string[],
  key: Buffer,
  cells: readonly CellLike[],
): { keys: Buffer[]; values: IndexedValue[]; ts: number } {
  const d = keyspace.decodeDataKey(key);
  const tagsCell = cells.find((c) => c.qualifier.equals(TAGS_QUALIFIER));
  const tags = tagsCell === undefined ? {} : parseTags(tagsCell.value);
  const keys: Buffer[] = [];
  const values: IndexedValue[] = [];
  for (const tag of indexTags) {
    const value = Object.hasOwn(tags, tag) ? tags[tag] : undefined;
    if (value === undefined) continue;
    keys.push(keyspace.indexKey({ indexName: tag, value, ts: d.ts, id: d.id }, d.offset));
    values.push({ tag, value });
  }
  return { keys, values, ts: d.ts };
}

function parseTags(value: Buffer): Readonly<Record<string, string>> {
  try {
    const parsed: unknown = JSON.parse(value.toString('utf8'));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
    return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === 'string'));
  } catch {
    return {};
  }
}

/** The index scans that find what is left of an id's index rows of one (tag, value): one per bucket, any salt mode. */
export function indexCheckRanges(keyspace: Keyspace, v: IndexedValue, minTs: number, maxTs: number): ScanRange[] {
  return indexScanRanges(v.tag, v.value, keyspace.buckets, { saltMode: 'entry', bounds: { fromTs: minTs, toTs: maxTs } });
}

/** Windows of one size: those wholly in [from, to) (start range, inclusive; null: none) and those it cuts. */
export interface WindowCut {
  readonly size: WindowSize;
  readonly whole: { readonly fromStart: number; readonly toStart: number } | null;
  /** starts of the windows [from, to) covers only in part */
  readonly cut: readonly number[];
}

export function windowCuts(windows: readonly WindowSize[], range: { readonly from: number; readonly to: number }): WindowCut[] {
  assertRange(range);
  return windows.map((size) => {
    const fromStart = Math.ceil(range.from / size.ms) * size.ms;
    const toStart = Math.floor(range.to / size.ms) * size.ms - size.ms;
    const cut = new Set<number>();
    if (range.from % size.ms !== 0) cut.add(Math.floor(range.from / size.ms) * size.ms);
    if (range.to % size.ms !== 0) cut.add(Math.floor(range.to / size.ms) * size.ms);
    return { size, whole: fromStart <= toStart ? { fromStart, toStart } : null, cut: [...cut] };
  });
}

/** The summary scans: the id's whole summary prefix, or per size the windows wholly in the range. */
export function summaryScans(keyspace: Keyspace, id: string, windows: readonly WindowSize[], range: DeleteRange): ScanRange[] {
  if (range === null) {
    // salt(id) ‖ id ‖ 0x00: every window size of this id, never a marker (byte 1 of a marker is 0x00).
    return [prefixRange(Buffer.concat([Buffer.from([keyspace.baseSalt(id)]), encodeId(id), Buffer.from([0x00])]))];
  }
  return windowCuts(windows, range).flatMap((c) => (c.whole === null ? [] : [keyspace.rollupRange(id, c.size.seconds, c.whole.fromStart, c.whole.toStart)]));
}

/** The marks (id, window) a range delete leaves for the rollup job: every window it cuts, of every size. */
export function recomputeMarks(id: string, windows: readonly WindowSize[], range: { readonly from: number; readonly to: number }): RollupKeyParts[] {
  return windowCuts(windows, range).flatMap((c) => c.cut.map((windowStart) => ({ id, windowSec: c.size.seconds, windowStart })));
}

/** The marker rows of the id's base bucket (every size and window; per-id markers of earlier versions too). */
export function markerScan(keyspace: Keyspace, id: string): ScanRange {
  const salt = keyspace.baseSalt(id);
  return { startRow: Buffer.from([salt, 0x00]), stopRow: Buffer.from([salt, 0x01]) };
}

/** What to delete of one marker row: the id's cell, the whole per-id marker row, or nothing. */
export type MarkerAction = { readonly kind: 'cell'; readonly qualifier: Buffer } | { readonly kind: 'row' } | null;

/** Whose marks markerAction removes: DeleteSettings fits. */
export interface MarksOf {
  readonly keyspace: Keyspace;
  readonly id: string;
  readonly windows: readonly WindowSize[];
  readonly range: DeleteRange;
}

export function markerAction(of: MarksOf, marker: { readonly row: Buffer; readonly cells: readonly CellLike[] }): MarkerAction {
  const { keyspace, id, windows, range } = of;
  const { row: key, cells } = marker;
  const k = keyspace.decodeMarkerKey(key);
  // a touch row (src/ingest/touches.ts) marks no window: a whole-id delete takes the id's cell (nothing
  // of the id stays), a range delete leaves it (a touch says the id was written, not when its points lie)
  const touch = k.windowSec === TOUCH_WINDOW_SEC;
  if (touch && range !== null) return null;
  if (range !== null) {
    const size = windows.find((w) => w.seconds === k.windowSec);
    const ms = size?.ms ?? k.windowSec * 1000;
    if (!(k.windowStart >= range.from && k.windowStart + ms <= range.to)) return null;
  }
  if (k.id !== null) return k.id === id && cells.some((c) => c.qualifier.equals(LEGACY_QUALIFIER)) ? { kind: 'row' } : null;
  const qualifier = Buffer.from(id, 'utf8');
  return cells.some((c) => c.qualifier.equals(qualifier) && !c.qualifier.equals(VERSION_QUALIFIER)) ? { kind: 'cell', qualifier } : null;
}
