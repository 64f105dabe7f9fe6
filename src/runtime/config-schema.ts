// The one configuration schema. Defaults live here and nowhere else. Every key carries a one-line
// `.describe()`: docs/CONFIG.md is generated from it (`npm run config:docs`), and a unit test fails
// when a key has none or the page is stale. A new key: add it with `.default(…).describe('…')`, then
// run `npm run config:docs`.
import { z } from 'zod';
import { DEFAULT_MAX_TS, parseTimeSetting } from '../events/index.ts';
import { httpSchema } from './config-http.ts';
import { rollupSchema } from './config-rollup.ts';


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

const tableFields = (defaultName: string) => ({
      name: z.string().regex(/^[A-Za-z0-9_.-]+(:[A-Za-z0-9_.-]+)?$/, 'an HBase table name ([ns:]name)').default(defaultName)
        .describe('HBase table name ([namespace:]name)'),
      family: z.string().regex(/^[A-Za-z0-9_]{1,4}$/, 'a short column family name (1–4 characters)').default('d')
        .describe('The one column family (1–4 characters)'),
      versions: z.number().int().min(1).max(10).default(1).describe('Cell versions kept (VERSIONS); replays rewrite the same cell, so 1 is enough'),
      ttlSeconds: z.number().int().positive().nullable().default(null)
        .describe('Time to live of cells in seconds, counted from the cell timestamp: the event ts in the data and index tables, the writer\'s clock in the meta table (null: forever)'),
      bloomFilter: z.enum(['NONE', 'ROW', 'ROWCOL']).default('ROW').describe('Bloom filter type of the family (BLOOMFILTER)'),
      compression: z.enum(['auto', 'NONE', 'SNAPPY', 'LZ4', 'ZSTD', 'GZ']).default('auto')
        .describe("Compression codec; 'auto' takes the first of SNAPPY, LZ4, ZSTD, GZ the cluster accepts, else NONE (an existing table keeps its codec)"),
      dataBlockEncoding: z.enum(['NONE', 'PREFIX', 'DIFF', 'FAST_DIFF', 'ROW_INDEX_V1']).default('FAST_DIFF')
        .describe('Data block encoding of the family (DATA_BLOCK_ENCODING)'),
});

const tableSchema = (defaultName: string, description: string) =>
  z.object(tableFields(defaultName)).strict().prefault({}).describe(description);

/** The rollup table: the common fields plus one TTL per window size (docs/RETENTION.md). */
const rollupTableSchema = (defaultName: string, description: string) =>
  z
    .object({
      ...tableFields(defaultName),
      ttlSeconds: z.number().int().positive().nullable().default(null)
        .describe('Default time to live (s) of the summaries of every window size not in ttlByWindow, and of the marker family (tables.rollup.family, which also keeps summaries written before the per-size families); counted from the summary\'s cell timestamp, the time the rollup job wrote it, at or after the window closed (null: forever)'),
      ttlByWindow: z.record(z.string(), z.number().int().positive().nullable()).default({})
        .describe('Time to live (s) of one window size\'s summaries, by window as in rollup.windows, e.g. {"1h": 31536000, "1d": null} (null: forever); each size has its own family r<size> (r1h, r1d); a window not listed takes ttlSeconds'),
      pointsFamily: z.string().regex(/^[A-Za-z0-9_]{1,4}$/, 'a short column family name (1–4 characters)').default('p')
        .describe('The family of the point blocks (rollup.pointBlocks), every window size in it; its TTL is the data table\'s (tables.data.ttlSeconds), counted from when the job wrote the block'),
    })
    .strict()
    .prefault({})
    .describe(description);

export const configSchema = z
  .object({
    kafka: z
      .object({
        brokers: z.array(z.string().regex(/^[^\s:]+:\d+$/, 'host:port')).min(1).default(['127.0.0.1:9092'])
          .describe('Kafka bootstrap brokers, host:port each (the env variable takes a comma-separated list)'),
        clientId: z.string().min(1).default('tsingest').describe('Kafka client id of the consumer and the DLQ producer'),
        topic: z.string().min(1).default('ts-events').describe('Topic of the incoming JSON events'),
        groupId: z.string().min(1).default('tsingest').describe('Consumer group; offsets are committed only after the HBase writes are acknowledged'),
        dlqTopic: z.string().min(1).default('ts-events-dlq')
          .describe('Dead-letter topic: rejected records with their original key and bytes and tsingest-* reason headers'),
        fromBeginning: z.boolean().default(true).describe('A group without committed offsets starts at the earliest record (false: at the latest)'),
        partitionsConsumedConcurrently: z.number().int().min(1).max(64).default(16)
          .describe('Partitions whose batches are processed at the same time; at least the partitions one instance owns, so a fetch is handled in one wave (kafkajs fetches again only after its last batch)'),
        sessionTimeoutMs: z.number().int().min(6000).default(30_000).describe('Consumer group session timeout (ms)'),
        heartbeatIntervalMs: z.number().int().min(500).default(3000)
          .describe('Consumer heartbeat interval (ms), kept up while a flush unit is being written'),
        maxBytesPerPartition: z.number().int().min(1024).default(524_288)
          .describe('Most bytes fetched per partition; times the partitions an instance owns, it bounds a fetch response (one per broker at a time)'),
        maxWaitTimeMs: z.number().int().min(10).default(500)
          .describe('Longest a fetch waits for more records (ms); each fetched batch is flushed whole, so this is the time-based flush'),
        tls: z
          .object({
            enabled: z.boolean().default(false).describe('Connect to the brokers over TLS (SSL or SASL_SSL listeners); the brokers\' certificates are always verified'),
            caFile: z.string().min(1).nullable().default(null).describe('PEM file of the CA(s) that signed the brokers\' certificates, instead of the system trust store'),
            certFile: z.string().min(1).nullable().default(null).describe('PEM client certificate for mutual TLS (with keyFile)'),
            keyFile: z.string().min(1).nullable().default(null).describe('PEM private key of certFile'),
            keyPassphraseFile: z.string().min(1).nullable().default(null).describe('File holding the passphrase of an encrypted keyFile'),
            serverName: z.string().min(1).nullable().default(null).describe('Name the brokers\' certificates must carry (and SNI), when they are reached by IP or another name'),
          })
          .strict()
          .prefault({})
          .describe('TLS to the Kafka brokers; docs/SECURITY.md'),
        sasl: z
          .object({
            mechanism: z.enum(['none', 'plain', 'scram-sha-256', 'scram-sha-512', 'oauthbearer']).default('none')
              .describe('SASL mechanism of the consumer, the DLQ producer, the lag monitor and every CLI command that talks to Kafka'),
            username: z.string().min(1).nullable().default(null).describe('SASL user (plain, scram-*)'),
            password: z.string().min(1).nullable().default(null)
              .describe('SASL password; prefer passwordFile or the environment (TSI_KAFKA_PASSWORD) to a config file. Never logged'),
            passwordFile: z.string().min(1).nullable().default(null).describe('File holding the SASL password (a Kubernetes secret); read at start'),
            oauthTokenFile: z.string().min(1).nullable().default(null)
              .describe('OAUTHBEARER: file holding the token, read at every (re)authentication'),
            oauthTokenCommand: z.array(z.string().min(1)).min(1).nullable().default(null)
              .describe('OAUTHBEARER: argv of a command that prints a token on stdout, run at every (re)authentication (10 s deadline)'),
          })
          .strict()
          .prefault({})
          .describe('SASL authentication to the Kafka brokers; docs/SECURITY.md'),
      })
      .strict()
      .prefault({})
      .describe('Kafka consumer and dead-letter producer'),
    hbase: z
      .object({
        restUrl: z.url().default('http://127.0.0.1:8080').describe('Base URL of the HBase REST gateway (the one-gateway form of restUrls)'),
        restUrls: z.array(z.url()).default([])
          .describe('Base URLs of several REST gateways in front of one cluster (empty: restUrl alone): requests go to the healthy one with the fewest in flight, a gateway whose connections fail leaves the rotation until it answers a probe; all the same scheme and path; hbase.tls and hbase.auth apply to each (docs/ARCHITECTURE.md, *Several REST gateways*). Env: comma-separated'),
        requestDeadlineMs: z.number().int().min(100).default(30_000).describe('Deadline of one REST request (ms)'),
        connections: z.number().int().min(1).max(256).default(16).describe('HTTP connections kept to the REST gateway'),
        putEncoding: z.enum(['protobuf', 'json']).default('protobuf')
          .describe('Body format of writes to the REST gateway: protobuf CellSet (no base64, no JSON on either side; BENCHMARKS.md) or JSON'),
        concurrency: z.number().int().min(1).max(256).default(8)
          .describe('REST write requests in flight at once (one queue shared by data and index chunks)'),
        retryBaseMs: z.number().int().min(1).default(100)
          .describe('First retry delay after a retriable HBase error (ms); grows exponentially up to retryMaxMs, with full jitter'),
        retryMaxMs: z.number().int().min(1).default(5000).describe('Largest retry delay (ms); must be >= hbase.retryBaseMs'),
        outageDeadlineMs: z.number().int().min(100).default(60_000)
          .describe('When no write has been acknowledged for this long (ms), counted from the oldest unacknowledged write, the service pauses consumption and reports not ready until HBase answers again'),
        adminCommand: z.array(z.string()).default([])
          .describe('argv that runs the table admin tool (deploy/admin/TableAdmin.java), needed by tables apply; the env variable takes a JSON array'),
        tls: z
          .object({
            caFile: z.string().min(1).nullable().default(null)
              .describe('PEM file of the CA(s) that signed the gateway\'s (or the proxy\'s) certificate, instead of the system\'s trust store; the certificate is always verified'),
            certFile: z.string().min(1).nullable().default(null).describe('PEM client certificate for mutual TLS (with keyFile)'),
            keyFile: z.string().min(1).nullable().default(null).describe('PEM private key of certFile'),
            keyPassphraseFile: z.string().min(1).nullable().default(null).describe('File holding the passphrase of an encrypted keyFile'),
            serverName: z.string().min(1).nullable().default(null)
              .describe('Name the gateway\'s certificate must carry (and SNI), when restUrl names it by IP address or by another name'),
          })
          .strict()
          .prefault({})
          .describe('TLS to the REST gateway (an https restUrl); docs/SECURITY.md'),
        auth: z
          .object({
            type: z.enum(['none', 'basic', 'bearer', 'spnego']).default('none')
              .describe('Authorization header sent with every request: HTTP Basic (Apache Knox, an authenticating proxy), a Bearer token, or spnego: Kerberos (Authorization: Negotiate) to a gateway with hbase.rest.authentication.type=kerberos, its hadoop.auth cookie reused until it expires; the ticket cache (KRB5CCNAME) or client keytab (KRB5_CLIENT_KTNAME) comes from the environment'),
            username: z.string().min(1).nullable().default(null).describe('Basic auth user'),
            password: z.string().min(1).nullable().default(null)
              .describe('Basic auth password; prefer passwordFile or the environment (TSI_HBASE_PASSWORD) to a config file. Never logged'),
            passwordFile: z.string().min(1).nullable().default(null).describe('File holding the Basic auth password (a Kubernetes secret); read at start'),
            token: z.string().min(1).nullable().default(null)
              .describe('Bearer token; prefer tokenFile or the environment (TSI_HBASE_TOKEN). Never logged'),
            tokenFile: z.string().min(1).nullable().default(null)
              .describe('File holding the Bearer token; read again when it changes (rotated tokens)'),
            servicePrincipal: z.string().regex(/^[^/@\s]+(@[^/@\s]+|\/[^/@\s]+(@[^/@\s]+)?)$/, 'HTTP@host, HTTP/host or HTTP/host@REALM').nullable().default(null)
              .describe('spnego: the gateway\'s Kerberos principal, as HTTP@host or HTTP/host@REALM; default HTTP@<host of restUrl>. Set it when restUrl names the gateway by IP address or by an alias'),
          })
          .strict()
          .prefault({})
          .describe('Credentials for the REST gateway or the proxy in front of it; docs/SECURITY.md'),
      })
      .strict()
      .prefault({})
      .describe('HBase REST gateway and writes'),
    keys: z
      .object({
        saltBuckets: z.number().int().min(1).max(256).default(16)
          .describe('Salt buckets B of data, index and rollup keys; recorded in table metadata, the service refuses to start when config and table disagree'),
        format: z.enum(['binary', 'printable']).default('binary')
          .describe('Data rowkey format: binary, or printable (hex salt, decimal reverse ts; see docs/KEYS.md)'),
        spread: z
          .object({
            auto: z.boolean().default(true)
              .describe('Promote hot ids automatically: every instance publishes its write shares to the registry, and an id whose share over all instances reaches minShare gets a new epoch with more buckets (docs/HOT-IDS.md). Off: only `tsingest spread set` promotes; epochs in the registry are always followed'),
            minShare: z.number().gt(0).max(1).default(0.003)
              .describe('Share of all writes (over metrics.hotIdsWindowMs, summed over the instances) from which an id is spread; relative to a fair bucket it is minShare × B (0.003 × 16 ≈ 5 %)'),
            kFactor: z.number().min(1).max(1024).default(64)
              .describe('K of a promoted id: the smallest power of two ≥ share × B × kFactor (each of its buckets then gets at most 1/kFactor of a fair bucket\'s writes from it), at least 2, at most maxK'),
            maxK: z.number().int().min(1).max(256).nullable().default(null)
              .describe('Most buckets one id may spread over (null: B; 1: no new epochs, existing ones are still followed)'),
            minEvents: z.number().int().min(1).default(10_000)
              .describe('Writes (over all instances, in the window) needed before any automatic promotion is decided'),
            leadMs: z.number().int().min(1000).default(60_000)
              .describe('A new epoch starts this far ahead of the promotion (its since): every instance refreshes the registry in between, so no event is written under an epoch that can still change (docs/KEYS.md). Must exceed 3 × refreshMs + 2 × clockToleranceMs'),
            refreshMs: z.number().int().min(100).default(2000)
              .describe('Registry refresh period of each instance; a snapshot older than 3 × refreshMs is not used to plan writes (the unit waits for a refresh)'),
            clockToleranceMs: z.number().int().min(0).default(5000)
              .describe('Largest difference between the hosts\' clocks the epoch timing tolerates'),
          })
          .strict()
          .prefault({})
          .describe('Spread ids: a hot id\'s events over several salt buckets (docs/HOT-IDS.md, docs/KEYS.md)'),
      })
      .strict()
      .prefault({})
      .describe('Rowkeys (docs/KEYS.md)'),
    tables: z
      .object({
        data: tableSchema('tsdata', 'Data table: one row per (id, ts), a cell per metric (docs/KEYS.md)'),
        index: tableSchema('tsindex', 'Secondary index table: one row per (tag, value, ts, id)'),
        rollup: rollupTableSchema('tsrollup', 'Rollup table: summary rows (one family per window size) and rollup markers'),
        meta: tableSchema('tsmeta', 'Meta table: the spread registry (epochs of spread ids), the instances\' write shares and the series catalog; one region'),
      })
      .strict()
      .prefault({})
      .describe('Tables that `tables apply` creates, pre-split on the salt boundaries'),
    index: z
      .object({
        tags: z.array(z.string().min(1)).default([]).describe('Tag names to index; one index row per (tag, value, ts, id)'),
        saltMode: z.enum(['entry', 'value']).default('entry')
          .describe("Index key salt: 'entry' hashes (tag, value, id) and spreads a hot value over all buckets; 'value' hashes (tag, value): one-bucket reads, hotspot risk"),
      })
      .strict()
      .prefault({})
      .describe('Secondary index'),
    query: z
      .object({
        defaultLimit: z.number().int().min(1).default(100).describe('Page size of a read that names no limit'),
        maxLimit: z.number().int().min(1).max(100_000).default(10_000).describe('Most rows one page may hold; larger asks are capped'),
        bucketConcurrency: z.number().int().min(1).max(256).default(8).describe('Scans (one per salt bucket) a by-tag read runs at once'),
        verifyChunk: z.number().int().min(1).max(1000).default(100).describe('Index hits verified against the data table per multi-get'),
        verifyScanChunk: z.number().int().min(1).max(100_000).default(5000)
          .describe('A by-tag page of more than query.verifyChunk items verifies its hits in chunks of this many by range scans of the data table (one per bucket) instead of multi-gets'),
        repairDangling: z.boolean().default(false)
          .describe('Delete dangling index rows that by-tag reads find (only those older than query.danglingGraceMs), and only in reads by a caller with the admin scope: an anonymous or read-scope GET never writes. `tsingest index rebuild` repairs regardless'),
        deadlineMs: z.number().int().min(100).default(30_000)
          .describe('Longest one read API request (/api/v1/…) may take: past it the scan is cancelled and the caller gets 408 (or the connection is cut if the page had started)'),
        danglingGraceMs: z.number().int().min(0).default(600_000)
          .describe('Age (ms) an index row without its data row must reach before a read may repair it'),
      })
      .strict()
      .prefault({})
      .describe('Read paths'),
    series: z
      .object({
        enabled: z.boolean().default(true)
          .describe('The OpenTSDB-compatible series API on the service\'s HTTP port: /api/query, /api/suggest, /api/search/lookup, /api/aggregators, /api/config/filters, /api/version (docs/SERIES-API.md)'),
        maxSeries: z.number().int().min(1).default(10_000).describe('Most series one sub-query may match; more is a 400 naming this key'),
        maxPoints: z.number().int().min(1).default(2_000_000).describe('Most raw points one query may read (all its sub-queries); more is a 400 naming this key. Summary windows read from the rollups are not counted'),
        deadlineMs: z.number().int().min(100).default(30_000).describe('A query still reading after this long is cancelled and answered 408, as OpenTSDB answers a timeout (ms)'),
        concurrency: z.number().int().min(1).max(64).default(8).describe('Scans one read of a query runs at once (each scan covers up to 256 id ranges)'),
        maxBodyBytes: z.number().int().min(1024).default(1_048_576).describe('Largest request body /api/query and /api/search/lookup accept (bytes); more is a 413'),
        catalogRefreshMs: z.number().int().min(1000).default(30_000)
          .describe('The read side rereads what is new in the series catalog this often (ms; every 20th reread is whole); a query or look-up naming a metric it does not know rereads at once (at most every 2 s)'),
        integerValues: z.boolean().default(true)
          .describe('Treat whole-number values as OpenTSDB treats values written without a decimal point (its integer arithmetic where every value at a timestamp is one: truncating avg and interpolation). Our cells are doubles and cannot tell 42 from 42.0 (docs/SERIES-API.md, divergences)'),
      })
      .strict()
      .prefault({})
      .describe('The OpenTSDB-compatible series API (docs/SERIES-API.md)'),
    rollup: rollupSchema,
    catalog: z
      .object({
        enabled: z.boolean().default(true)
          .describe('Write the series catalog: one meta-table row per series (metric, id, tag set), put after its data rows are acknowledged and before the offsets are committed; the series API (/api/suggest, /api/search/lookup, /api/query) finds series in it (docs/SERIES-API.md). `tsingest catalog backfill` fills it for data written without it'),
        idTagKey: z.string().regex(/^[\p{L}\p{N}._/-]+$/u, 'an OpenTSDB tag key: letters, digits, - _ . /').default('id')
          .describe('The tag key under which the series API shows the event id (the id is not stored in the catalog\'s tag JSON). An event tag of this name is shadowed by the id in the API (kept in the catalog row, not shown)'),
        cacheSize: z.number().int().min(0).default(100_000)
          .describe('Series each instance remembers as written (least recently seen forgotten first), so a series is written once, not per flush unit; a forgotten one is written again once (the same put). About 150 bytes + the tags JSON per series; 0: every flush unit writes its series'),
      })
      .strict()
      .prefault({})
      .describe('The series catalog in the meta table (docs/SERIES-API.md, docs/KEYS.md)'),
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
        maxCellBytes: z.number().int().min(1024).max(10 * 1024 * 1024).default(1024 * 1024)
          .describe('Largest raw record and encoded tags cell in bytes; larger records are dead-lettered as cell_too_large'),
        maxFutureSkewMs: z.number().int().min(0).nullable().default(null)
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
        maxBytes: z.number().int().min(1024).default(4 * 1024 * 1024).describe('Bytes per flush unit and per REST write chunk (about)'),
        maxQueuedRows: z.number().int().min(1).default(16_000)
          .describe('Most records taken from Kafka and not yet committed, over all partitions in flight (tsingest_queue_depth); a unit waits and fetching pauses at the bound. Must be >= batch.maxRows'),
        lingerMs: z.number().int().min(0).max(1000).nullable().default(5)
          .describe('Longest a flush unit waits for the units of other partitions, to be written with them in one write (at most batch.maxRows × hbase.concurrency rows); null: each unit is written alone'),
      })
      .strict()
      .refine((b) => b.maxQueuedRows >= b.maxRows, { message: 'must be >= batch.maxRows (a flush unit must fit in the queue)', path: ['maxQueuedRows'] })
      .prefault({})
      .describe('Flush units and write chunks (time-based flushing is the fetch wait, kafka.maxWaitTimeMs)'),
    http: httpSchema,
    metrics: z
      .object({
        regionRefreshMs: z.number().int().min(1000).default(30_000)
          .describe("Interval (ms) between refreshes of each table's region map (GET /<table>/regions)"),
        skewWindowMs: z.number().int().min(1000).default(60_000).describe('Sliding window (ms) of the region write skew gauge'),
        hotIdsWindowMs: z.number().int().min(1000).default(60_000).describe('Window (ms) of the hot-ids sketch (tsingest_hot_id_events, the /ui hot ids table, automatic spreading)'),
        hotIdsCapacity: z.number().int().min(16).max(10_000).default(1024)
          .describe('Counters per time slot of the hot-ids sketch: an id\'s count is at most (window events) / capacity too high, so keep it well above 1 / keys.spread.minShare'),
        heatmapSampleMs: z.number().int().min(100).default(5000).describe('How often (ms) the /ui heatmap samples the per-region write counters (it keeps the last 120 samples)'),
      })
      .strict()
      .prefault({})
      .describe('Region write spread and hot-spot metrics'),
    doctor: z
      .object({
        everyMs: z.number().int().min(0).refine((v) => v === 0 || v >= 1000, 'must be 0 (off) or at least 1000')
          .default(600_000)
          .describe('The service runs the schema doctor on its own tables shortly after start and then this long (ms) after each run ended; the findings are on /ui and /ui/data.json (docs/DOCTOR.md). 0: off'),
        sampleRows: z.number().int().min(0).max(1000).default(5)
          .describe('Rows the service\'s doctor reads from the start of every region of its tables (cell and key size rules; 0: no sample)'),
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
