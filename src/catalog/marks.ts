// Series catalog rows written by ingest and by the backfill (docs/SERIES-API.md, "The series catalog"): one row per
// series (metric, id, tag set) a flush unit carried, put after the unit's data rows are acknowledged
// and before its offsets are committed, like the rollup markers (event-writer.ts).
// A bounded cache (least recently seen evicted first) remembers the series this process has written,
// so the steady state writes nothing: a series already written is not written again, one evicted is
// rewritten once (the same put: same key, same cell). Pure apart from the clock (cell timestamps).
import { randomBytes } from 'node:crypto';
import {
  canonicalTags,
  GENERATION_QUALIFIER,
  GENERATION_ROW,
  JOURNALED_QUALIFIER,
  JOURNAL_KEEP_MS,
  JOURNAL_MINUTE_MS,
  journalKey,
  seriesRowOf,
  SERIES_QUALIFIER,
} from './rows.ts';
import type { DataRow } from '../events/index.ts';

export interface CatalogMarksOptions {
  /** tables.meta.family */
  readonly family: string;
  /** Series remembered as written (catalog.cacheSize); 0 disables the cache: every unit writes its series. */
  readonly cacheSize: number;
  readonly now?: () => number;
}

/** What one event says about its series: its id, metric and tags (with their canonical JSON when known). */
export interface SeriesTouch {
  readonly id: string;
  readonly metric: string;
  readonly tags: Readonly<Record<string, string>>;
  /** canonicalTags(tags), e.g. the tags cell the parser encoded (undefined: computed here; absent for no tags) */
  readonly tagsCell?: Buffer | undefined;
}

/** A catalog row to put and the cache key it stands for (remembered once acknowledged). */
export interface CatalogRow {
  readonly row: DataRow;
  /** the series' id (the writer pairs the row with an event of it) */
  readonly id: string;
  readonly cacheKey: string;
}

const NO_TAGS_JSON = Buffer.from('{}', 'utf8');

/** A journal row to put, and the sweep of its older cells that goes with it (none: done this minute). */
export interface JournalWrite {
  readonly row: DataRow;
  readonly sweep: { readonly before: number; readonly minute: number } | undefined;
}

/** The key a series is remembered by: its metric, id and canonical tags JSON (the series row's cell). */
export function catalogCacheKey(metric: string, id: string, json: Uint8Array): string {
  return `${metric}\u0000${id}\u0000${Buffer.from(json.buffer, json.byteOffset, json.byteLength).toString('latin1')}`;
}

export class CatalogMarks {
  readonly #o: CatalogMarksOptions;
  readonly #now: () => number;
  /**
   * cacheKey → the count of moves to the end at its own last one, in order of last use (Map order:
   * oldest first). A key is moved again only when more than a quarter of the cache moved after it: a
   * series met at every unit costs a look-up, not a delete and an insert (with no new series, nothing
   * moves), and a series met at least once in every half a cache of moves is never evicted (moved at
   * most a quarter plus a half after its last move, evicted only a whole cache after it).
   */
  readonly #written = new Map<string, number>();
  #moves = 0;
  /** journal row (latin1) → the minute this process last swept it in (at most 1,440 entries) */
  readonly #swept = new Map<string, number>();

  constructor(options: CatalogMarksOptions) {
    if (!Number.isSafeInteger(options.cacheSize) || options.cacheSize < 0) throw new RangeError(`cacheSize must be an integer >= 0, got ${options.cacheSize}`);
    this.#o = options;
    this.#now = options.now ?? Date.now;
  }

  /** Rows for the distinct series of `touches` this process has not written (or has forgotten). */
  rowsFor(touches: Iterable<SeriesTouch>): CatalogRow[] {
    // id → the series of it this call has handled: most events of a unit repeat a series met before in
    // it, recognised by its metric and tag bytes without building its key (bench:encode, *write*)
    const handled = new Map<string, { readonly metric: string; readonly json: Uint8Array }[]>();
    const rows: CatalogRow[] = [];
    let stamp: number | undefined;
    for (const t of touches) {
      const json = t.tagsCell ?? (Object.keys(t.tags).length === 0 ? NO_TAGS_JSON : canonicalTags(t.tags));
      const ofId = handled.get(t.id);
      if (ofId === undefined) handled.set(t.id, [{ metric: t.metric, json }]);
      else if (ofId.some((s) => s.metric === t.metric && Buffer.compare(s.json, json) === 0)) continue;
      else ofId.push({ metric: t.metric, json });
      const cacheKey = catalogCacheKey(t.metric, t.id, json);
      const at = this.#written.get(cacheKey);
      if (at !== undefined) {
        if (this.#moves - at > this.#o.cacheSize / 4) {
          this.#written.delete(cacheKey); // touched: now the most recently used
          this.#written.set(cacheKey, ++this.#moves);
        }
        continue;
      }
      const r = seriesRowOf(t.metric, t.id, json);
      stamp ??= this.#now();
      rows.push({
        row: { key: r.key, cells: [{ family: this.#o.family, qualifier: SERIES_QUALIFIER, value: r.value, timestamp: stamp }] },
        id: t.id,
        cacheKey,
      });
    }
    return rows;
  }

  /**
   * The catalog's generation with a fresh token (rows.ts GENERATION_ROW): put it once series rows
   * are acknowledged, so readers checking it learn that something was written. `journaled`: the
   * writer also put those rows in the journal (then the token goes in `j` too, so a reader knows the
   * last writer did).
   */
  generationRow(journaled: boolean): DataRow {
    const token = randomBytes(8);
    const cell = (qualifier: Buffer) => ({ family: this.#o.family, qualifier, value: token, timestamp: this.#now() });
    return { key: GENERATION_ROW, cells: journaled ? [cell(GENERATION_QUALIFIER), cell(JOURNALED_QUALIFIER)] : [cell(GENERATION_QUALIFIER)] };
  }

  /**
   * The journal row of `rows` (rows.ts JOURNAL_PREFIX): one cell per series row, in the row of the
   * minute of their stamp, put with them (before the generation). `sweep`: this process's first write
   * to that row in this minute also deletes its cells stamped before `sweep.before` (yesterday's);
   * swept() records it once done.
   */
  journalRow(rows: readonly CatalogRow[]): JournalWrite {
    const stamp = rows[0]?.row.cells[0]?.timestamp ?? this.#now();
    const key = journalKey(stamp);
    const cells = rows.map((r) => ({ family: this.#o.family, qualifier: r.row.key, value: r.row.cells[0]?.value ?? NO_TAGS_JSON, timestamp: stamp }));
    const minute = Math.floor(stamp / JOURNAL_MINUTE_MS);
    const swept = this.#swept.get(key.toString('latin1')) === minute;
    return { row: { key, cells }, sweep: swept ? undefined : { before: stamp - JOURNAL_KEEP_MS, minute } };
  }

  /** The sweep of `write` was done: no other sweep of its row this minute. */
  swept(write: JournalWrite): void {
    if (write.sweep !== undefined) this.#swept.set(write.row.key.toString('latin1'), write.sweep.minute);
  }

  /**
   * Series the catalog already holds (catalogCacheKey), remembered as written while the cache has room:
   * a process that starts primed from the catalog does not write every series it meets again, and so
   * does not replace the generation and fill the journal with them for every query process to read.
   * Resolves to how many were taken.
   */
  remember(cacheKeys: Iterable<string>): number {
    const room = this.#o.cacheSize - this.#written.size;
    let n = 0;
    for (const k of cacheKeys) {
      if (n >= room) break;
      if (this.#written.has(k)) continue;
      this.#written.set(k, ++this.#moves);
      n++;
    }
    return n;
  }

  /** Call once the rows' puts were acknowledged by HBase. */
  acknowledged(rows: readonly CatalogRow[]): void {
    const max = this.#o.cacheSize;
    if (max === 0) return;
    for (const r of rows) if (!this.#written.has(r.cacheKey)) this.#written.set(r.cacheKey, ++this.#moves);
    if (this.#written.size <= max) return;
    for (const k of this.#written.keys()) {
      this.#written.delete(k);
      if (this.#written.size <= max) break;
    }
  }

  get cached(): number {
    return this.#written.size;
  }
}
