// The one configuration schema, composed here of its sections (config-kafka.ts, config-hbase.ts,
// config-storage.ts, config-reads.ts, config-rollup.ts, config-http.ts, and the small ones below).
// Defaults live in these files and nowhere else. Every key carries a one-line `.describe()`:
// docs/CONFIG.md is generated from it (`npm run config:docs`), and a unit test fails when a key has
// none or the page is stale. A new key: add it with `.default(…).describe('…')`, then run
// `npm run config:docs`.
import { z } from 'zod';
import { DEFAULT_MAX_TS, parseTimeSetting } from '../events/index.ts';
import { hbaseSchema } from './config-hbase.ts';
import { httpSchema } from './config-http.ts';
import { kafkaSchema } from './config-kafka.ts';
import { catalogSchema, querySchema, seriesSchema } from './config-reads.ts';
import { rollupSchema } from './config-rollup.ts';
import { indexSchema, keysSchema, tablesSchema } from './config-storage.ts';

/** JSON Schema `format` of point-in-time keys (docs/CONFIG.md renders it and the default as a date). */
export const POINT_IN_TIME_FORMAT = 'epoch-ms-or-iso-8601';

/** A point in time given as epoch milliseconds or ISO-8601 with a zone; parsed to epoch ms. */
const pointInTime = z
  .union([z.number(), z.string()], { error: 'expected epoch milliseconds or an ISO-8601 string' })
  .transform((raw, ctx) => {
    const t = parseTimeSetting(raw);
    if (t.ok) return t.ms;
    ctx.addIssue({ code: 'custom', message: t.detail });
    return z.NEVER;
  })
  .meta({ format: POINT_IN_TIME_FORMAT });

/** What `tsingest run` runs (src/service/roles.ts): ingest, query, or both in one process. */
export const SERVICE_ROLES = ['ingest', 'query', 'all'] as const;
export type ServiceRole = (typeof SERVICE_ROLES)[number];

export const configSchema = z
  .object({
    service: z
      .object({
        role: z
          .enum(SERVICE_ROLES)
          .default('all')
          .describe(
            'What `tsingest run` runs. ingest: consume and write, the rollup job, the spread promoter, the schema doctor, /ui; no read routes. query: the read API and the series API; joins no consumer group and writes nothing. all: both in one process (the demo, a small site). `--role` wins (docs/ARCHITECTURE.md, *Roles*)',
          ),
      })
      .strict()
      .prefault({})
      .describe('The role of the process: which parts `tsingest run` starts'),
    kafka: kafkaSchema,
    hbase: hbaseSchema,
    keys: keysSchema,
    tables: tablesSchema,
    index: indexSchema,
    query: querySchema,
    series: seriesSchema,
    rollup: rollupSchema,
    catalog: catalogSchema,
    events: z
      .object({
        mapping: z
          .object({
            id: z.string().min(1).default('id').describe('Field path of the id in the event JSON (dotted paths allowed, e.g. payload.deviceId)'),
            ts: z.string().min(1).default('ts').describe('Field path of the timestamp (epoch ms or ISO-8601 with a zone)'),
            metric: z.string().min(1).default('metric').describe('Field path of the metric name'),
            value: z.string().min(1).default('value').describe('Field path of the numeric value'),
            tags: z.string().min(1).default('tags').describe('Field path of the optional string→string tags object'),
          })
          .strict()
          .prefault({})
          .describe('Source field names of the event; dotted paths reach into nested objects'),
        maxCellBytes: z
          .number()
          .int()
          .min(1024)
          .max(10 * 1024 * 1024)
          .default(1024 * 1024)
          .describe('Largest raw record and encoded tags cell in bytes; larger records are dead-lettered as cell_too_large'),
        maxFutureSkewMs: z
          .number()
          .int()
          .min(0)
          .nullable()
          .default(null)
          .describe('Reject events whose ts is more than this many ms ahead of now (null: no check)'),
        maxTs: pointInTime
          .default(DEFAULT_MAX_TS)
          .describe('Latest accepted event ts (epoch ms or ISO-8601); later events are dead-lettered as ts_out_of_range'),
      })
      .strict()
      .prefault({})
      .describe('Event contract and validation'),
    batch: z
      .object({
        maxRows: z.number().int().min(1).max(100_000).default(2000).describe('Records per flush unit and rows per REST write chunk'),
        maxBytes: z
          .number()
          .int()
          .min(1024)
          .default(4 * 1024 * 1024)
          .describe('Bytes per flush unit and per REST write chunk (about)'),
        maxQueuedRows: z
          .number()
          .int()
          .min(1)
          .default(16_000)
          .describe(
            'Most records taken from Kafka and not yet committed, over all partitions in flight (tsingest_queue_depth); a unit waits and fetching pauses at the bound. Must be >= batch.maxRows',
          ),
        lingerMs: z
          .number()
          .int()
          .min(0)
          .max(1000)
          .nullable()
          .default(5)
          .describe(
            'Longest a flush unit waits for the units of other partitions, to be written with them in one write (at most batch.maxRows × hbase.concurrency rows); null: each unit is written alone',
          ),
      })
      .strict()
      .refine((b) => b.maxQueuedRows >= b.maxRows, { message: 'must be >= batch.maxRows (a flush unit must fit in the queue)', path: ['maxQueuedRows'] })
      .prefault({})
      .describe('Flush units and write chunks (time-based flushing is the fetch wait, kafka.maxWaitTimeMs)'),
    http: httpSchema,
    metrics: z
      .object({
        regionRefreshMs: z
          .number()
          .int()
          .min(1000)
          .default(30_000)
          .describe("Interval (ms) between refreshes of each table's region map (GET /<table>/regions)"),
        skewWindowMs: z.number().int().min(1000).default(60_000).describe('Sliding window (ms) of the region write skew gauge'),
        hotIdsWindowMs: z
          .number()
          .int()
          .min(1000)
          .default(60_000)
          .describe('Window (ms) of the hot-ids sketch (tsingest_hot_id_events, the /ui hot ids table, automatic spreading)'),
        hotIdsCapacity: z
          .number()
          .int()
          .min(16)
          .max(10_000)
          .default(1024)
          .describe(
            "Counters per time slot of the hot-ids sketch: an id's count is at most (window events) / capacity too high, so keep it well above 1 / keys.spread.minShare",
          ),
        heatmapSampleMs: z
          .number()
          .int()
          .min(100)
          .default(5000)
          .describe('How often (ms) the /ui heatmap samples the per-region write counters (it keeps the last 120 samples)'),
      })
      .strict()
      .prefault({})
      .describe('Region write spread and hot-spot metrics'),
    doctor: z
      .object({
        everyMs: z
          .number()
          .int()
          .min(0)
          .refine((v) => v === 0 || v >= 1000, 'must be 0 (off) or at least 1000')
          .default(600_000)
          .describe(
            'The service runs the schema doctor on its own tables shortly after start and then this long (ms) after each run ended; the findings are on /ui and /ui/data.json (docs/DOCTOR.md). 0: off',
          ),
        sampleRows: z
          .number()
          .int()
          .min(0)
          .max(1000)
          .default(5)
          .describe("Rows the service's doctor reads from the start of every region of its tables (cell and key size rules; 0: no sample)"),
      })
      .strict()
      .prefault({})
      .describe('The schema doctor inside the service; `tsingest doctor` runs it by hand'),
    log: z
      .object({
        level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace']).default('info').describe('Log level of the service (pino)'),
      })
      .strict()
      .prefault({})
      .describe('Logging'),
    shutdown: z
      .object({
        drainTimeoutMs: z.number().int().min(100).default(30_000).describe('On SIGTERM, time (ms) to finish in-flight writes and commit before exiting'),
      })
      .strict()
      .prefault({})
      .describe('Graceful shutdown'),
  })
  .strict();

export type Config = z.infer<typeof configSchema>;
export type TableConfig = Config['tables']['data'];
export type RollupTableConfig = Config['tables']['rollup'];
