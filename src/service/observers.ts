// Bridges from the ingest path's observer interfaces to the Prometheus metrics and the spread map.
import { bucketOfKey, type KeyFormat } from '../keys/index.ts';
import type { Metrics } from '../metrics/registry.ts';
import type { RegionMap } from '../metrics/region-map.ts';
import type { WriteSpread } from '../metrics/write-spread.ts';
import type { WriteObserver } from '../ingest/dual-writer.ts';
import type { IngestObserver } from '../ingest/consumer.ts';

function statusOf(err: unknown): string {
  const e = err as { status?: unknown; code?: unknown };
  if (typeof e.status === 'number') return String(e.status);
  return typeof e.code === 'string' ? e.code.toLowerCase() : 'error';
}

export function writeObserver(m: Metrics, spread: WriteSpread, regions: RegionMap, formats: Readonly<Record<string, KeyFormat>>): WriteObserver {
  const bucketOf = (table: string) => (key: Buffer): number | undefined => {
    try {
      return bucketOfKey(key, formats[table] ?? 'binary');
    } catch {
      return undefined;
    }
  };
  return {
    written(table, keys, seconds) {
      m.hbaseRequestDuration.observe({ table, op: 'put', status: '200' }, seconds);
      m.rowsWritten.inc({ table }, keys.length);
      spread.record(table, keys, bucketOf(table));
    },
    failed(table, err, seconds) {
      m.hbaseRequestDuration.observe({ table, op: 'put', status: statusOf(err) }, seconds);
      regions.markStale(table); // a moved or split region is one cause of failures
    },
    retried(table) {
      m.hbaseRetries.inc({ table, op: 'put' });
    },
    queued(delta) {
      m.queueDepth.inc(delta);
    },
  };
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
    lag(topic, partition, lag) {
      m.consumerLag.set({ topic, partition: String(partition) }, lag);
    },
  };
}
