// The one configuration schema. Defaults live here and nowhere else.
import { z } from 'zod';

const tableSchema = (defaultName: string) =>
  z
    .object({
      name: z.string().regex(/^[A-Za-z0-9_.-]+(:[A-Za-z0-9_.-]+)?$/, 'an HBase table name ([ns:]name)').default(defaultName),
      family: z.string().regex(/^[A-Za-z0-9_]{1,4}$/, 'a short column family name (1–4 characters)').default('d'),
      versions: z.number().int().min(1).max(10).default(1),
      ttlSeconds: z.number().int().positive().nullable().default(null),
      bloomFilter: z.enum(['NONE', 'ROW', 'ROWCOL']).default('ROW'),
      // 'auto' asks the cluster for the first codec it has among SNAPPY, LZ4, ZSTD, GZ and falls back to NONE.
      compression: z.enum(['auto', 'NONE', 'SNAPPY', 'LZ4', 'ZSTD', 'GZ']).default('auto'),
      dataBlockEncoding: z.enum(['NONE', 'PREFIX', 'DIFF', 'FAST_DIFF', 'ROW_INDEX_V1']).default('FAST_DIFF'),
    })
    .strict()
    .prefault({});

export const configSchema = z
  .object({
    kafka: z
      .object({
        brokers: z.array(z.string().regex(/^[^\s:]+:\d+$/, 'host:port')).min(1).default(['127.0.0.1:9092']),
        clientId: z.string().min(1).default('tsingest'),
        topic: z.string().min(1).default('ts-events'),
        groupId: z.string().min(1).default('tsingest'),
        dlqTopic: z.string().min(1).default('ts-events-dlq'),
        fromBeginning: z.boolean().default(true),
        partitionsConsumedConcurrently: z.number().int().min(1).max(64).default(4),
        sessionTimeoutMs: z.number().int().min(6000).default(30_000),
        heartbeatIntervalMs: z.number().int().min(500).default(3000),
        maxBytesPerPartition: z.number().int().min(1024).default(1_048_576),
        maxWaitTimeMs: z.number().int().min(10).default(500),
      })
      .strict()
      .prefault({}),
    hbase: z
      .object({
        restUrl: z.url().default('http://127.0.0.1:8080'),
        requestDeadlineMs: z.number().int().min(100).default(30_000),
        connections: z.number().int().min(1).max(256).default(16),
        concurrency: z.number().int().min(1).max(256).default(8),
        retryBaseMs: z.number().int().min(1).default(100),
        retryMaxMs: z.number().int().min(1).default(5000),
        outageDeadlineMs: z.number().int().min(100).default(60_000),
        adminCommand: z.array(z.string()).default([]),
      })
      .strict()
      .prefault({}),
    keys: z
      .object({
        saltBuckets: z.number().int().min(1).max(256).default(16),
        format: z.enum(['binary', 'printable']).default('binary'),
      })
      .strict()
      .prefault({}),
    tables: z
      .object({
        data: tableSchema('tsdata'),
        index: tableSchema('tsindex'),
        rollup: tableSchema('tsrollup'),
      })
      .strict()
      .prefault({}),
    index: z
      .object({
        tags: z.array(z.string().min(1)).default([]),
        saltMode: z.enum(['entry', 'value']).default('entry'),
      })
      .strict()
      .prefault({}),
    query: z
      .object({
        // Page size when a read names no limit, and the most one page may hold (larger asks are capped).
        defaultLimit: z.number().int().min(1).default(100),
        maxLimit: z.number().int().min(1).max(100_000).default(10_000),
        // Scans (one per salt bucket) a by-tag read runs at once.
        bucketConcurrency: z.number().int().min(1).max(256).default(8),
        // Index hits verified against the data table per multi-get.
        verifyChunk: z.number().int().min(1).max(1000).default(100),
        // Delete dangling index rows found by reads (only those older than danglingGraceMs).
        repairDangling: z.boolean().default(false),
        danglingGraceMs: z.number().int().min(0).default(600_000),
      })
      .strict()
      .prefault({}),
    rollup: z
      .object({
        // Run the rollup job inside the service (`tsingest rollup run` runs it once, for cron).
        enabled: z.boolean().default(true),
        // Window sizes, finest first; each must be a whole multiple of the previous one ("15m", "1h", "1d").
        windows: z.array(z.string().regex(/^[1-9][0-9]*[smhd]$/, 'a duration like 15m, 1h or 1d')).min(1).default(['1h', '1d']),
        // A window is closed (and rolled up) once window end + graceMs <= now.
        graceMs: z.number().int().min(0).default(300_000),
        intervalMs: z.number().int().min(1000).default(60_000),
        // Windows recomputed at once.
        concurrency: z.number().int().min(1).max(64).default(4),
        // (id, window) pairs remembered as marked, so a hot id does not re-mark an open window per unit.
        markerCacheSize: z.number().int().min(0).default(100_000),
      })
      .strict()
      .prefault({}),
    events: z
      .object({
        mapping: z
          .object({
            id: z.string().min(1).default('id'),
            ts: z.string().min(1).default('ts'),
            metric: z.string().min(1).default('metric'),
            value: z.string().min(1).default('value'),
            tags: z.string().min(1).default('tags'),
          })
          .strict()
          .prefault({}),
        maxCellBytes: z.number().int().min(1024).max(10 * 1024 * 1024).default(1024 * 1024),
        maxFutureSkewMs: z.number().int().min(0).nullable().default(null),
      })
      .strict()
      .prefault({}),
    batch: z
      .object({
        maxRows: z.number().int().min(1).max(100_000).default(2000),
        maxBytes: z.number().int().min(1024).default(4 * 1024 * 1024),
        maxWaitMs: z.number().int().min(1).default(500),
        maxQueuedRows: z.number().int().min(1).default(50_000),
      })
      .strict()
      .prefault({}),
    http: z
      .object({
        host: z.string().default('127.0.0.1'),
        port: z.number().int().min(0).max(65535).default(9464),
      })
      .strict()
      .prefault({}),
    metrics: z
      .object({
        regionRefreshMs: z.number().int().min(1000).default(30_000),
        skewWindowMs: z.number().int().min(1000).default(60_000),
      })
      .strict()
      .prefault({}),
    log: z.object({ level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace']).default('info') }).strict().prefault({}),
    shutdown: z.object({ drainTimeoutMs: z.number().int().min(100).default(30_000) }).strict().prefault({}),
  })
  .strict();

export type Config = z.infer<typeof configSchema>;
export type TableConfig = Config['tables']['data'];
