// Bridges from the ingest path's observer interfaces to the Prometheus metrics and the region writes.
import type { Metrics } from '../metrics/ingest-metrics.ts';
import type { RegionMap } from '../load/region-map.ts';
import type { RegionWrites } from '../load/region-writes.ts';
import type { WriteObserver, WrittenRow } from '../ingest/event-writer.ts';
import type { IngestObserver } from '../ingest/consumer.ts';
import type { LagSink } from '../ingest/lag-monitor.ts';

/**
 * The `status` label of a failed request: the HTTP status, else the error's code in lower case
 * without the HBase family's prefix (`timeout`, `network`: the label values from before the codes
 * took the HBASE_ prefix), else `error`.
 */
function statusOf(err: unknown): string {
  const e = err as { status?: unknown; code?: unknown };
  if (typeof e.status === 'number') return String(e.status);
  return typeof e.code === 'string' ? e.code.replace(/^HBASE_/, '').toLowerCase() : 'error';
}

/** Where the ids of acknowledged data-table rows go to find the hot ids (src/load/hot-ids.ts `HotIds`). */
export interface HotIdFeed {
  readonly table: string;
  /** One event per id; the writer hands over the ids (and event ts) of the planned events, nothing is decoded. */
  recordIds(ids: readonly string[], ts?: readonly number[]): void;
  /** For rows that come without their id: the id is decoded from the data key. */
  recordDataKeys(keys: readonly Buffer[]): void;
}

export function writeObserver(m: Metrics, writes: RegionWrites, regions: RegionMap, hotIds?: HotIdFeed): WriteObserver {
  return {
    written(table, rows, seconds) {
      m.hbaseRequestDuration.observe({ table, op: 'put', status: '200' }, seconds);
      m.rowsWritten.inc({ table }, rows.length);
      // Each row carries the salt bucket it was planned in and its event's id; nothing is decoded back
      // from the key.
      const keys = new Array<Buffer>(rows.length);
      const buckets = new Map<Buffer, number>();
      for (let i = 0; i < rows.length; i++) {
        const r = rows[i] as WrittenRow;
        keys[i] = r.key;
        buckets.set(r.key, r.bucket);
      }
      writes.record(table, keys, (key) => buckets.get(key));
      if (hotIds !== undefined && table === hotIds.table) feedHotIds(hotIds, rows);
    },
    failed(table, err, seconds) {
      m.hbaseRequestDuration.observe({ table, op: 'put', status: statusOf(err) }, seconds);
      regions.markStale(table); // a moved or split region is one cause of failures
    },
    retried(table) {
      m.hbaseRetries.inc({ table, op: 'put' });
    },
    catalogWritten(table, rows, seconds) {
      m.hbaseRequestDuration.observe({ table, op: 'put', status: '200' }, seconds);
      m.rowsWritten.inc({ table }, rows);
      m.catalogRowsWritten.inc(rows);
    },
  };
}

function feedHotIds(hotIds: HotIdFeed, rows: readonly WrittenRow[]): void {
  const ids: string[] = [];
  const ts: number[] = [];
  let keys: Buffer[] | undefined;
  for (const r of rows) {
    if (r.id !== undefined && r.ts !== undefined) {
      ids.push(r.id);
      ts.push(r.ts);
    } else (keys ??= []).push(r.key);
  }
  hotIds.recordIds(ids, ts);
  if (keys !== undefined) hotIds.recordDataKeys(keys);
}

export function ingestObserver(m: Metrics, now: () => number = Date.now): IngestObserver {
  return {
    unit(rows, bytes) {
      m.batchRows.observe(rows);
      m.batchBytes.observe(bytes);
    },
    accepted(eventTs) {
      const t = now();
      m.events.inc({ outcome: 'written' }, eventTs.length);
      for (const ts of eventTs) m.endToEndLatency.observe(Math.max(0, t - ts) / 1000);
    },
    deadLettered(rejects) {
      if (rejects.length > 0) m.events.inc({ outcome: 'dlq' }, rejects.length);
      for (const r of rejects) m.dlqRecords.inc({ reason: r.reason });
    },
    queued(records) {
      m.queueDepth.set(records);
    },
  };
}

export function lagSink(m: Metrics): LagSink {
  return {
    set(topic, partition, lag) {
      m.consumerLag.set({ topic, partition: String(partition) }, lag);
    },
    remove(topic, partition) {
      m.consumerLag.remove({ topic, partition: String(partition) });
    },
  };
}
