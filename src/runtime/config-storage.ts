// The storage sections of the configuration schema (src/runtime/config-schema.ts): the key layout
// (`keys`), the four tables (`tables`: one family each, the rollup table's TTL per window size and
// its point blocks' family) and the secondary index (`index`).
import { z } from 'zod';

/**
 * The longest TTL a column family can have: HBase keeps it as a Java int of seconds, and the int's
 * largest value, 2147483647, is HConstants.FOREVER (the admin tool reads it back as FOREVER). A
 * number here is always a real TTL; null is forever.
 */
export const HBASE_MAX_TTL_SECONDS = 2_147_483_646;

/** A family's TTL in seconds, 1 to HBASE_MAX_TTL_SECONDS, or null for forever. */
const ttlSeconds = () =>
  z
    .number()
    .int()
    .min(1)
    .max(
      HBASE_MAX_TTL_SECONDS,
      `at most ${HBASE_MAX_TTL_SECONDS} s (about 68 years): HBase keeps a TTL as a 32-bit count of seconds and reads 2147483647 as FOREVER; null is forever`,
    )
    .nullable();

const tableFields = (defaultName: string) => ({
  name: z
    .string()
    .regex(/^[A-Za-z0-9_.-]+(:[A-Za-z0-9_.-]+)?$/, 'an HBase table name ([ns:]name)')
    .default(defaultName)
    .describe('HBase table name ([namespace:]name)'),
  family: z
    .string()
    .regex(/^[A-Za-z0-9_]{1,4}$/, 'a short column family name (1–4 characters)')
    .default('d')
    .describe('The one column family (1–4 characters)'),
  versions: z.number().int().min(1).max(10).default(1).describe('Cell versions kept (VERSIONS); replays rewrite the same cell, so 1 is enough'),
  ttlSeconds: ttlSeconds()
    .default(null)
    .describe(
      "Time to live of cells in seconds, counted from the cell timestamp: the event ts in the data and index tables, the writer's clock in the meta table (null: forever)",
    ),
  bloomFilter: z.enum(['NONE', 'ROW', 'ROWCOL']).default('ROW').describe('Bloom filter type of the family (BLOOMFILTER)'),
  compression: z
    .enum(['auto', 'NONE', 'SNAPPY', 'LZ4', 'ZSTD', 'GZ'])
    .default('auto')
    .describe("Compression codec; 'auto' takes the first of SNAPPY, LZ4, ZSTD, GZ the cluster accepts, else NONE (an existing table keeps its codec)"),
  dataBlockEncoding: z
    .enum(['NONE', 'PREFIX', 'DIFF', 'FAST_DIFF', 'ROW_INDEX_V1'])
    .default('FAST_DIFF')
    .describe('Data block encoding of the family (DATA_BLOCK_ENCODING)'),
});

const tableSchema = (defaultName: string, description: string) => z.object(tableFields(defaultName)).strict().prefault({}).describe(description);

/** The rollup table: the common fields plus one TTL per window size (docs/RETENTION.md). */
const rollupTableSchema = (defaultName: string, description: string) =>
  z
    .object({
      ...tableFields(defaultName),
      ttlSeconds: ttlSeconds()
        .default(null)
        .describe(
          "Default time to live (s) of the summaries of every window size not in ttlByWindow, and of the marker family (tables.rollup.family, which also keeps summaries written before the per-size families); counted from the summary's cell timestamp, the time the rollup job wrote it, at or after the window closed (null: forever)",
        ),
      ttlByWindow: z
        .record(z.string(), ttlSeconds())
        .default({})
        .describe(
          'Time to live (s) of one window size\'s summaries, by window as in rollup.windows, e.g. {"1h": 31536000, "1d": null} (null: forever); each size has its own family r<size> (r1h, r1d); a window not listed takes ttlSeconds',
        ),
      pointsFamily: z
        .string()
        .regex(/^[A-Za-z0-9_]{1,4}$/, 'a short column family name (1–4 characters)')
        .default('p')
        .describe(
          'The family of the point blocks (rollup.pointBlocks), every window size in it; its TTL is tables.rollup.pointsTtlSeconds, counted from when the job wrote the block',
        ),
      pointsTtlSeconds: z
        .union([z.literal('data'), ttlSeconds()])
        .default('data')
        .describe(
          'Time to live (s) of the point blocks, counted from when the job wrote the block (at or after its window closed); "data": the data table\'s (tables.data.ttlSeconds). Longer than the data table\'s keeps the series API\'s raw points of summarised windows after the raw rows have expired, at a fraction of their bytes (docs/RETENTION.md, "Point blocks as the long-term tier"); null: forever',
        ),
    })
    .strict()
    .prefault({})
    .describe(description);

export const keysSchema = z
  .object({
    saltBuckets: z
      .number()
      .int()
      .min(1)
      .max(256)
      .default(16)
      .describe('Salt buckets B of data, index and rollup keys; recorded in table metadata, the service refuses to start when config and table disagree'),
    format: z
      .enum(['binary', 'printable'])
      .default('binary')
      .describe('Data rowkey format: binary, or printable (hex salt, decimal reverse ts; see docs/KEYS.md)'),
    spread: z
      .object({
        auto: z
          .boolean()
          .default(true)
          .describe(
            'Promote hot ids automatically: every instance publishes its write shares to the registry, and an id whose share over all instances reaches minShare gets a new epoch with more buckets (docs/HOT-IDS.md). Off: only `tsingest spread set` promotes; epochs in the registry are always followed',
          ),
        minShare: z
          .number()
          .gt(0)
          .max(1)
          .default(0.003)
          .describe(
            'Share of all writes (over metrics.hotIdsWindowMs, summed over the instances) from which an id is spread; relative to a fair bucket it is minShare × B (0.003 × 16 ≈ 5 %)',
          ),
        kFactor: z
          .number()
          .min(1)
          .max(1024)
          .default(64)
          .describe(
            "K of a promoted id: the smallest power of two ≥ share × B × kFactor (each of its buckets then gets at most 1/kFactor of a fair bucket's writes from it), at least 2, at most maxK",
          ),
        maxK: z
          .number()
          .int()
          .min(1)
          .max(256)
          .nullable()
          .default(null)
          .describe('Most buckets one id may spread over (null: B; 1: no new epochs, existing ones are still followed)'),
        minEvents: z
          .number()
          .int()
          .min(1)
          .default(10_000)
          .describe('Writes (over all instances, in the window) needed before any automatic promotion is decided'),
        leadMs: z
          .number()
          .int()
          .min(1000)
          .default(60_000)
          .describe(
            'A new epoch starts this far ahead of the promotion (its since): every instance refreshes the registry in between, so no event is written under an epoch that can still change (docs/KEYS.md). Must exceed 3 × refreshMs + 2 × clockToleranceMs',
          ),
        refreshMs: z
          .number()
          .int()
          .min(100)
          .default(2000)
          .describe('Registry refresh period of each instance; a snapshot older than 3 × refreshMs is not used to plan writes (the unit waits for a refresh)'),
        clockToleranceMs: z.number().int().min(0).default(5000).describe("Largest difference between the hosts' clocks the epoch timing tolerates"),
      })
      .strict()
      .prefault({})
      .describe("Spread ids: a hot id's events over several salt buckets (docs/HOT-IDS.md, docs/KEYS.md)"),
  })
  .strict()
  .prefault({})
  .describe('Rowkeys (docs/KEYS.md)');

export const tablesSchema = z
  .object({
    data: tableSchema('tsdata', 'Data table: one row per (id, ts), a cell per metric (docs/KEYS.md)'),
    index: tableSchema('tsindex', 'Secondary index table: one row per (tag, value, ts, id)'),
    rollup: rollupTableSchema('tsrollup', 'Rollup table: summary rows (one family per window size) and rollup markers'),
    meta: tableSchema('tsmeta', "Meta table: the spread registry (epochs of spread ids), the instances' write shares and the series catalog; one region"),
  })
  .strict()
  .prefault({})
  .describe('Tables that `tables apply` creates, pre-split on the salt boundaries');

export const indexSchema = z
  .object({
    tags: z.array(z.string().min(1)).default([]).describe('Tag names to index; one index row per (tag, value, ts, id)'),
    saltMode: z
      .enum(['entry', 'value'])
      .default('entry')
      .describe(
        "Index key salt: 'entry' hashes (tag, value, id) and spreads a hot value over all buckets; 'value' hashes (tag, value): one-bucket reads, hotspot risk",
      ),
  })
  .strict()
  .prefault({})
  .describe('Secondary index');
