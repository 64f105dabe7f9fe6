// Pure planning for the benchmark's `opentsdb` phase (OpenTSDB 2.4.1's TSD beside the service, on
// the same HBase): generated event → OpenTSDB point, the TSD's tables and their salt split points,
// its configuration file, its /api/query paths and answers, and the CPU arithmetic. No I/O here.
import type { GeneratedEvent } from '../../../src/demo/index.ts';

/** One data point of OpenTSDB's /api/put body (timestamp in ms: 13 digits mean milliseconds to the TSD). */
export interface OpenTsdbPoint {
  readonly metric: string;
  readonly timestamp: number;
  readonly value: number;
  readonly tags: Readonly<Record<string, string>>;
}

/** The event as an OpenTSDB point: metric, ms timestamp (+ shiftMs), value; tags = {id, …the event's tags}. */
export function toOpenTsdbPoint(e: GeneratedEvent, shiftMs = 0): OpenTsdbPoint {
  return { metric: e.metric, timestamp: e.ts + shiftMs, value: e.value, tags: { id: e.id, ...e.tags } };
}

/** The four tables OpenTSDB's create_table.sh makes, each with its families, named for one benchmark run. */
export interface TsdTables {
  readonly data: string;
  readonly uid: string;
  readonly tree: string;
  readonly meta: string;
}

export function tsdTables(prefix: string): TsdTables {
  return { data: `${prefix}_tsdb`, uid: `${prefix}_tsdb_uid`, tree: `${prefix}_tsdb_tree`, meta: `${prefix}_tsdb_meta` };
}

/** Families per table, as in OpenTSDB's src/create_table.sh (tsdb-uid has two: id and name). */
export function tsdFamilies(t: TsdTables): readonly { readonly table: string; readonly families: readonly string[]; readonly salted: boolean }[] {
  return [
    { table: t.data, families: ['t'], salted: true },
    { table: t.uid, families: ['id', 'name'], salted: false },
    { table: t.tree, families: ['t'], salted: false },
    { table: t.meta, families: ['name'], salted: false },
  ];
}

/**
 * Split points for the data table: OpenTSDB's row key starts with `tsd.storage.salt.width` bytes of
 * salt, the bucket number 0..buckets-1 big-endian (RowKey.getSaltBytes), so one region per bucket
 * starts at each bucket's first key: buckets 1..buckets-1, `width` bytes each.
 */
export function saltSplits(buckets: number, width = 1): Buffer[] {
  if (!Number.isInteger(width) || width < 1 || width > 8) throw new RangeError(`salt width must be 1..8, got ${width}`);
  if (!Number.isInteger(buckets) || buckets < 1 || buckets > 256 ** Math.min(width, 6))
    throw new RangeError(`salt buckets must be 1..${256 ** Math.min(width, 6)} for width ${width}, got ${buckets}`);
  const out: Buffer[] = [];
  for (let b = 1; b < buckets; b++) {
    const key = Buffer.alloc(width);
    key.writeUIntBE(b, Math.max(0, width - 6), Math.min(width, 6));
    out.push(key);
  }
  return out;
}

export interface TsdConfigInput {
  readonly port: number;
  readonly zkQuorum: string;
  readonly tables: TsdTables;
  readonly buckets: number;
  readonly staticRoot: string;
  readonly cacheDir: string;
  /** the largest request body the TSD accepts (bytes); bodies above Netty's 8 KiB chunk need enable_chunked */
  readonly maxRequestBytes: number;
  /** its row compaction on (OpenTSDB's default and production setting: an hour of a series into one cell once the hour is past) */
  readonly compaction?: boolean;
}

/** opentsdb.conf for the benchmark: salted like `buckets`, compactions off unless asked (on: as in production), appends off, chunked requests on. */
export function tsdConfig(c: TsdConfigInput): string {
  return [
    `tsd.network.port = ${c.port}`,
    'tsd.network.bind = 127.0.0.1',
    `tsd.http.staticroot = ${c.staticRoot}`,
    `tsd.http.cachedir = ${c.cacheDir}`,
    `tsd.storage.hbase.zk_quorum = ${c.zkQuorum}`,
    `tsd.storage.hbase.data_table = ${c.tables.data}`,
    `tsd.storage.hbase.uid_table = ${c.tables.uid}`,
    `tsd.storage.hbase.tree_table = ${c.tables.tree}`,
    `tsd.storage.hbase.meta_table = ${c.tables.meta}`,
    'tsd.core.auto_create_metrics = true',
    'tsd.storage.salt.width = 1',
    `tsd.storage.salt.buckets = ${c.buckets}`,
    `tsd.storage.enable_compaction = ${c.compaction === true}`,
    'tsd.storage.enable_appends = false',
    'tsd.http.request.enable_chunked = true',
    `tsd.http.request.max_chunk = ${c.maxRequestBytes}`,
    '',
  ].join('\n');
}

/** /api/query path: one sub-query per metric (`agg:metric{k=v,…}`), ms resolution, [start, end] in ms. */
export function queryPath(q: {
  readonly aggregator: string;
  readonly metrics: readonly string[];
  readonly filter: Readonly<Record<string, string>>;
  readonly start: number;
  readonly end: number;
}): string {
  const tags = Object.entries(q.filter)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  const ms = q.metrics.map((m) => `m=${encodeURIComponent(`${q.aggregator}:${m}{${tags}}`)}`).join('&');
  return `/api/query?start=${q.start}&end=${q.end}&ms=true&${ms}`;
}

/** Data points in an /api/query answer (an array of series, each with a `dps` map); throws on anything else. */
export function countPoints(body: unknown): number {
  if (!Array.isArray(body)) throw new Error(`OpenTSDB query answer is not an array: ${JSON.stringify(body).slice(0, 300)}`);
  let n = 0;
  for (const s of body as unknown[]) {
    const dps = typeof s === 'object' && s !== null ? (s as Record<string, unknown>)['dps'] : undefined;
    if (typeof dps !== 'object' || dps === null) throw new Error('OpenTSDB query answer: a series without dps');
    n += Object.keys(dps).length;
  }
  return n;
}

/** An /api/put?summary answer whose points that were not stored all timed out (none failed): worth sending again. */
export function timedOutOnly(status: number, body: unknown): boolean {
  if (status !== 400 || typeof body !== 'object' || body === null) return false;
  const { failed, timeouts } = body as Record<string, unknown>;
  return failed === 0 && typeof timeouts === 'number' && timeouts > 0;
}

/** /api/put?summary answer: throws unless every point was stored. */
export function checkPutSummary(status: number, body: unknown, sent: number): void {
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  if (status !== 200 && status !== 204) throw new Error(`OpenTSDB /api/put answered ${status}: ${JSON.stringify(body).slice(0, 500)}`);
  if (status === 204) return;
  const { success, failed, timeouts } = b;
  if (success !== sent || failed !== 0 || timeouts !== 0)
    throw new Error(`OpenTSDB /api/put stored ${String(success)} of ${sent} points (failed ${String(failed)}, timeouts ${String(timeouts)})`);
}

/** CPU ms (from /proc utime+stime deltas) per 1,000 units of work; NaN when nothing was done. */
export function cpuMsPer1000(before: number, after: number, units: number): number {
  if (!(units > 0) || !(after >= before)) return Number.NaN;
  return ((after - before) / units) * 1000;
}
