// The `rollup` section of the configuration schema (src/runtime/config-schema.ts): the windows, the
// job's schedule and pace, and which runner works on which salt bucket (rollup.owners).
import { z } from 'zod';

export const rollupSchema = z
  .object({
    enabled: z
      .boolean()
      .default(true)
      .describe('Write rollup markers and run the rollup job inside the service (`tsingest rollup run` runs it once, for cron)'),
    windows: z
      .array(z.string().regex(/^[1-9][0-9]*[smhd]$/, 'a duration like 15m, 1h or 1d'))
      .min(1)
      .default(['1h', '1d'])
      .describe('Window sizes, finest first; each a whole multiple of the previous one (15m, 1h, 1d)'),
    graceMs: z.number().int().min(0).default(300_000).describe('A window is closed (and rolled up) once window end + graceMs <= now (ms)'),
    intervalMs: z.number().int().min(1000).default(60_000).describe('Pause between rollup job runs (ms)'),
    concurrency: z
      .number()
      .int()
      .min(1)
      .max(64)
      .default(1)
      .describe(
        "Salt buckets whose marker rows are read and recomputed at once (chunks of windows, one batch each: one source scan, one put); marker row check-and-deletes in flight: 4 × this. 1 keeps the job's share of the machine small at an hour's close (docs/ROLLUPS.md, *The job and the ingest*); more summarises a closed hour sooner",
      ),
    thread: z
      .boolean()
      .default(true)
      .describe(
        'Run the job on a worker thread of its own, with its own HBase client (its requests on the gateway metrics as client "rollup"), so its scans, folds and garbage collection never hold the ingest\'s event loop (Kafka heartbeats, fetches, acks); false: on the process\'s main thread (docs/ROLLUPS.md, *The job and the ingest*)',
      ),
    markerCacheSize: z
      .number()
      .int()
      .min(0)
      .default(100_000)
      .describe('(id, window) pairs remembered as marked, so a hot id does not re-mark an open window per flush unit'),
    markerSettleMs: z
      .number()
      .int()
      .min(0)
      .default(120_000)
      .describe(
        'The job takes an ingest marker only once its timestamp is this old (ms); meanwhile ingest skips re-marking that (id, window), also in closed windows (catch-up after an outage). 0: taken at once, closed windows re-marked per flush unit',
      ),
    pointBlocks: z
      .object({
        enabled: z
          .boolean()
          .default(true)
          .describe(
            'The job also writes every point of each metric of a summarised window into one cell (a point block, in tables.rollup.pointsFamily), so the series API reads raw points of summarised windows one cell per window instead of one row per event (docs/ROLLUPS.md, "Point blocks")',
          ),
        everySize: z
          .boolean()
          .default(false)
          .describe(
            'Blocks for every configured window size (true), or for the finest alone (false, the default): a point is then stored once in blocks, not once per size; a raw read of a whole closed day reads its hours\' blocks (one cell each) where it read one day block (docs/ROLLUPS.md, "Point blocks"). Day blocks written before stay until their TTL and are no longer read',
          ),
        summaryInBlock: z
          .boolean()
          .default(true)
          .describe(
            'A block stands for its window\'s summary (true, the default): beside a block whose points fold to the summary bit for bit, the job writes no summary cell, and readers make the summary from the block (docs/ROLLUPS.md, "A block in place of its summary"). Only for sizes whose blocks are kept at least as long as their summaries (tables.rollup.pointsTtlSeconds against the size\'s TTL). false: a summary cell beside every block, as before (for a rolling upgrade from a version that reads summaries from their cells alone)',
          ),
        maxPoints: z
          .number()
          .int()
          .min(1)
          .max(1_000_000) // MAX_BLOCK_POINTS (src/rollup/points-block.ts): a block's reader refuses more
          .default(100_000)
          .describe(
            'A metric with more points than this in one window gets no block (its reads go to the data table); 100,000 points take 0.05–0.5 MB for decimal values, 1.2 MB at the very worst (random doubles at random milliseconds)',
          ),
      })
      .strict()
      .prefault({})
      .describe('Point blocks: raw points of summarised windows packed by the rollup job (docs/ROLLUPS.md)'),
    owners: z
      .object({
        mode: z
          .enum(['kafka', 'all'])
          .default('kafka')
          .describe(
            "kafka: the runners of one cluster (instances, `tsingest rollup run`) share the salt buckets' markers through a Kafka consumer group, each working on the buckets of the partitions it is assigned; all: this runner works on every bucket (one runner alone, or no Kafka)",
          ),
        topic: z
          .string()
          .min(1)
          .nullable()
          .default(null)
          .describe('The ownership topic (one partition per salt bucket, never a message; created when missing). null: `<kafka.topic>.rollup-owners`'),
        groupId: z.string().min(1).nullable().default(null).describe('The ownership consumer group. null: `<kafka.groupId>.<the ownership topic>`'),
        sessionTimeoutMs: z
          .number()
          .int()
          .min(6000)
          .default(30_000)
          .describe(
            'A runner that stops heartbeating (kill -9, a partition) loses its buckets after this long (ms); takeover within this + a rebalance + rollup.intervalMs',
          ),
      })
      .strict()
      .prefault({})
      .describe('Which runner works on which salt bucket\'s rollup markers (docs/ROLLUPS.md, "Ownership")'),
  })
  .strict()
  .prefault({})
  .describe('Rollups: summary rows per id and window');
