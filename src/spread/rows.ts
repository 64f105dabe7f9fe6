/**
 * Pure: the rows of the meta table (docs/KEYS.md, "Spread registry"). One family (tables.meta.family).
 *
 *   "spread/" ‖ UTF-8(id)        qualifier "e": the id's entry, {"v":1,"epochs":[[since,k],…],"fence":ts|null}
 *                                (src/keys/spread.ts encodeEntry); changed only by check-and-put on it
 *   "load/" ‖ UTF-8(instance)    qualifier "l": an instance's load report (load.ts), rewritten every
 *                                refresh; a report older than 3 hot-id windows is ignored and deleted
 */
import { encodeId, prefixRange, type ScanRange } from '../keys/index.ts';

export const ENTRY_PREFIX = Buffer.from('spread/', 'latin1');
export const LOAD_PREFIX = Buffer.from('load/', 'latin1');
export const ENTRY_QUALIFIER = Buffer.from('e', 'latin1');
export const LOAD_QUALIFIER = Buffer.from('l', 'latin1');

export function entryRow(id: string): Buffer {
  return Buffer.concat([ENTRY_PREFIX, encodeId(id)]);
}

/** The id of an entry row, or undefined for any other row. */
export function idOfEntryRow(row: Buffer): string | undefined {
  if (row.length <= ENTRY_PREFIX.length || !row.subarray(0, ENTRY_PREFIX.length).equals(ENTRY_PREFIX)) return undefined;
  return row.subarray(ENTRY_PREFIX.length).toString('utf8');
}

export function loadRow(instance: string): Buffer {
  return Buffer.concat([LOAD_PREFIX, Buffer.from(instance, 'utf8')]);
}

export const ENTRY_RANGE: ScanRange = prefixRange(ENTRY_PREFIX);
export const LOAD_RANGE: ScanRange = prefixRange(LOAD_PREFIX);
