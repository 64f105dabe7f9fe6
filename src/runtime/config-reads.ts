// The read side's sections of the configuration schema (src/runtime/config-schema.ts): the read API
// (`query`), the OpenTSDB-compatible series API (`series`) and its catalog (`catalog`).
import { z } from 'zod';

export const querySchema = z
  .object({
    defaultLimit: z.number().int().min(1).default(100).describe('Page size of a read that names no limit'),
    maxLimit: z.number().int().min(1).max(100_000).default(10_000).describe('Most rows one page may hold; larger asks are capped'),
    bucketConcurrency: z.number().int().min(1).max(256).default(8).describe('Scans (one per salt bucket) a by-tag read runs at once'),
    verifyChunk: z.number().int().min(1).max(1000).default(100).describe('Index hits verified against the data table per multi-get'),
    verifyScanChunk: z
      .number()
      .int()
      .min(1)
      .max(100_000)
      .default(5000)
      .describe(
        'A by-tag page of more than query.verifyChunk items verifies its hits in chunks of this many by range scans of the data table (one per bucket) instead of multi-gets',
      ),
    repairDangling: z
      .boolean()
      .default(false)
      .describe(
        'Delete dangling index rows that by-tag reads find (only those older than query.danglingGraceMs), and only in reads by a caller with the admin scope: an anonymous or read-scope GET never writes. `tsingest index rebuild` repairs regardless',
      ),
    deadlineMs: z
      .number()
      .int()
      .min(100)
      .default(30_000)
      .describe(
        'Longest one read API request (/api/v1/…) may take: past it the scan is cancelled and the caller gets 408 (or the connection is cut if the page had started)',
      ),
    danglingGraceMs: z.number().int().min(0).default(600_000).describe('Age (ms) an index row without its data row must reach before a read may repair it'),
  })
  .strict()
  .prefault({})
  .describe('Read paths');

export const seriesSchema = z
  .object({
    enabled: z
      .boolean()
      .default(true)
      .describe(
        "The OpenTSDB-compatible series API on the service's HTTP port: /api/query, /api/suggest, /api/search/lookup, /api/aggregators, /api/config/filters, /api/version (docs/SERIES-API.md)",
      ),
    maxSeries: z.number().int().min(1).default(10_000).describe('Most series one sub-query may match; more is a 400 naming this key'),
    maxPoints: z
      .number()
      .int()
      .min(1)
      .default(2_000_000)
      .describe(
        'Most raw points one query may read (all its sub-queries), and most points its downsamplers may emit: a fill policy other than none emits one point per interval per series, counted before anything is read or computed (docs/SERIES-API.md, *Limits*); more is a 400 naming this key. Summary windows read from the rollups are not counted',
      ),
    maxSubQueries: z.number().int().min(1).max(1000).default(32).describe('Most sub-queries one /api/query request may hold; more is a 400 naming this key'),
    deadlineMs: z
      .number()
      .int()
      .min(100)
      .default(30_000)
      .describe('A query still reading after this long is cancelled and answered 408, as OpenTSDB answers a timeout (ms)'),
    concurrency: z.number().int().min(1).max(64).default(8).describe('Scans one read of a query runs at once (each scan covers up to 256 id ranges)'),
    maxBodyBytes: z
      .number()
      .int()
      .min(1024)
      .default(1_048_576)
      .describe('Largest request body /api/query and /api/search/lookup accept (bytes); more is a 413'),
    catalogRefreshMs: z
      .number()
      .int()
      .min(1000)
      .default(30_000)
      .describe(
        'The read side rereads what is new in the series catalog this often (ms; every 20th reread is whole); a query or look-up naming a metric it does not know rereads at once (at most every 2 s)',
      ),
    catalogFreshMs: z
      .number()
      .int()
      .min(0)
      .nullable()
      .default(0)
      .describe(
        'Before answering, a query waits for a reread of what is new in the series catalog that started at most this long (ms) before it arrived: 0, the default, means a series written before the query is in its answer (a new id under a site=* panel, as OpenTSDB shows it); queries arriving together share one reread (it starts 10 ms after the first asks). Larger: fewer rereads at high query rates, a new series missing from answers for up to this long. null: only the timed rereads (catalogRefreshMs) and unknown metrics',
      ),
    integerValues: z
      .boolean()
      .default(true)
      .describe(
        'Treat whole-number values as OpenTSDB treats values written without a decimal point (its integer arithmetic where every value at a timestamp is one: truncating avg and interpolation). Our cells are doubles and cannot tell 42 from 42.0 (docs/SERIES-API.md, divergences)',
      ),
    windowCache: z
      .object({
        maxBytes: z
          .number()
          .int()
          .min(0)
          .nullable()
          .default(null)
          .describe(
            "Heap the window cache may hold (bytes, estimated): the rollup windows the series API read (summaries, decoded summary packs), kept between queries and checked against the bucket generations the writers bump, so a repeated chart reads the markers and one meta row instead of two rows per id (docs/SERIES-API.md, *Window cache*). About 3 KB per id, metric and day of hourly summaries; 0: off; null (the default): a quarter of the V8 heap the process runs with, between 64 and 512 MiB (64 MiB with the ingest role's heap flags, 432 MiB with the query role's)",
          ),
        maxAgeMs: z
          .number()
          .int()
          .min(1000)
          .default(900_000)
          .describe(
            'A cached window answers for at most this long (ms) even while its generation holds: the staleness bound against writers that do not bump (an earlier version during a rolling upgrade, a restored snapshot)',
          ),
      })
      .strict()
      .prefault({})
      .describe("The series API's window cache (docs/SERIES-API.md, *Window cache*)"),
    tailCache: z
      .object({
        maxBytes: z
          .number()
          .int()
          .min(0)
          .default(67_108_864)
          .describe(
            'Heap the tail cache may hold (bytes, estimated): the raw points of recent windows not yet summarised (the open hour) that the series API read, kept between queries so a dashboard refresh reads only the last lateMs and what came since, not the whole open hour again (docs/SERIES-API.md, *Tail cache*). About 16 bytes per point; 0: off (also off when rollups are)',
          ),
        lateMs: z
          .number()
          .int()
          .min(1000)
          .default(30_000)
          .describe(
            'An event whose rollup marker is written more than this long (ms) after its ts is late: ingest re-marks its window (when the event is younger than horizonMs), and the tail cache takes the points it read as complete only up to this long (plus keys.spread.clockToleranceMs) before its read. Larger: fewer re-marks in a catch-up, more re-read per refresh',
          ),
        horizonMs: z
          .number()
          .int()
          .min(0)
          .default(7_200_000)
          .describe(
            'The tail cache keeps points younger than this (ms), and ingest re-marks late events only this young (a catch-up of older data writes no more markers than before); 0 turns both off',
          ),
      })
      .strict()
      .prefault({})
      .describe("The series API's tail cache of recent raw points, and the late re-marks that keep it exact (docs/SERIES-API.md, *Tail cache*)"),
  })
  .strict()
  .prefault({})
  .describe('The OpenTSDB-compatible series API (docs/SERIES-API.md)');

export const catalogSchema = z
  .object({
    enabled: z
      .boolean()
      .default(true)
      .describe(
        'Write the series catalog: one meta-table row per series (metric, id, tag set), put after its data rows are acknowledged and before the offsets are committed; the series API (/api/suggest, /api/search/lookup, /api/query) finds series in it (docs/SERIES-API.md). `tsingest catalog backfill` fills it for data written without it',
      ),
    idTagKey: z
      .string()
      .regex(/^[\p{L}\p{N}._/-]+$/u, 'an OpenTSDB tag key: letters, digits, - _ . /')
      .default('id')
      .describe(
        "The tag key under which the series API shows the event id (the id is not stored in the catalog's tag JSON). An event tag of this name is shadowed by the id in the API (kept in the catalog row, not shown)",
      ),
    cacheSize: z
      .number()
      .int()
      .min(0)
      .default(100_000)
      .describe(
        "Series each instance remembers as written (least recently seen forgotten first), so a series is written once, not per flush unit; a forgotten one is written again once (the same put). An ingest process starts with up to this many of the catalog's series remembered, so a restart writes only new ones. About 150 bytes + the tags JSON per series; 0: every flush unit writes its series",
      ),
  })
  .strict()
  .prefault({})
  .describe('The series catalog in the meta table (docs/SERIES-API.md, docs/KEYS.md)');
