/**
 * The ingest side's Prometheus metrics, on one explicit prom-client `Registry` created once and passed
 * down. Metric names are fixed: the Grafana dashboard queries them.
 * Design notes: docs/DECISIONS.md#the-metrics-registry
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { REJECT_REASONS } from '../events/reject.ts';
import { encodedRegionName } from '../hbase/region-name.ts';

export const METRIC_PREFIX = 'tsingest_';

export const METRIC_NAMES = {
  regionWrites: 'tsingest_region_writes_total',
  saltBucketWrites: 'tsingest_salt_bucket_writes_total',
  regionWriteSkew: 'tsingest_instance_region_write_skew',
  regionCount: 'tsingest_region_count',
  regionInfo: 'tsingest_region_info',
  rowsWritten: 'tsingest_rows_written_total',
  events: 'tsingest_events_total',
  batchRows: 'tsingest_batch_rows',
  batchBytes: 'tsingest_batch_bytes',
  hbaseRequestDuration: 'tsingest_hbase_request_duration_seconds',
  hbaseRetries: 'tsingest_hbase_retries_total',
  dlqRecords: 'tsingest_dlq_records_total',
  consumerLag: 'tsingest_consumer_lag',
  endToEndLatency: 'tsingest_end_to_end_latency_seconds',
  ready: 'tsingest_ready',
  state: 'tsingest_state',
  queueDepth: 'tsingest_queue_depth',
  regionMapRefresh: 'tsingest_region_map_refresh_total',
  catalogRowsWritten: 'tsingest_catalog_rows_written_total',
  consumerGroupJoins: 'tsingest_consumer_group_joins_total',
} as const;

/** `tsingest_consumer_group_joins_total{group}`: the ingest consumer group, and the rollup buckets' ownership group. */
export const CONSUMER_GROUPS = ['ingest', 'rollup-owners'] as const;
export type ConsumerGroupName = (typeof CONSUMER_GROUPS)[number];

/** `tsingest_events_total{outcome}`: an event was either written to HBase or sent to the DLQ. */
export const EVENT_OUTCOMES = ['written', 'dlq'] as const;
export type EventOutcome = (typeof EVENT_OUTCOMES)[number];

/** `tsingest_region_map_refresh_total{outcome}`. */
export const REFRESH_OUTCOMES = ['ok', 'error'] as const;
export type RefreshOutcome = (typeof REFRESH_OUTCOMES)[number];

/**
 * Every `tsingest_dlq_records_total{reason}` value: the parse reasons of src/events/reject.ts plus the
 * two later stages (rowkey encoding, a row HBase refused), listed here too in case reject.ts does not.
 */
export const DLQ_REASONS: readonly string[] = REJECT_REASONS;

/** HBase operations counted by `tsingest_hbase_retries_total{table,op}`. */
export const HBASE_RETRY_OPS = ['put'] as const;

/** `start_key` label of a region whose start key is empty (the table's first region); sorts before any hex. */
export const FIRST_REGION_START_KEY = '(first)';

/** Rows per batch: 1 … 10 000. */
export const BATCH_ROWS_BUCKETS = [1, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000] as const;
/** Bytes per batch: 256 B … 16 MiB (×4 steps). */
export const BATCH_BYTES_BUCKETS = [256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216] as const;
/** One HBase REST call: 1 ms … 30 s. */
export const HBASE_DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30] as const;
/** Event timestamp → write acknowledged: 5 ms … 10 min, finer between 100 ms and 1 s, where a
 *  healthy service's p50 and p99 lie (a quantile is interpolated inside its bucket). */
export const END_TO_END_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 10, 30, 60, 120, 300, 600] as const;

export interface Metrics {
  readonly registry: Registry;
  readonly regionWrites: Counter<'table' | 'region' | 'server'>;
  readonly saltBucketWrites: Counter<'table' | 'bucket'>;
  readonly regionWriteSkew: Gauge<'table'>;
  readonly regionCount: Gauge<'table'>;
  readonly regionInfo: Gauge<'table' | 'region' | 'start_key'>;
  readonly rowsWritten: Counter<'table'>;
  readonly events: Counter<'outcome'>;
  readonly batchRows: Histogram;
  readonly batchBytes: Histogram;
  readonly hbaseRequestDuration: Histogram<'table' | 'op' | 'status'>;
  readonly hbaseRetries: Counter<'table' | 'op'>;
  readonly dlqRecords: Counter<'reason'>;
  readonly consumerLag: Gauge<'topic' | 'partition'>;
  readonly endToEndLatency: Histogram;
  readonly ready: Gauge;
  readonly state: Gauge<'state'>;
  readonly queueDepth: Gauge;
  readonly regionMapRefresh: Counter<'table' | 'outcome'>;
  readonly catalogRowsWritten: Counter;
  readonly consumerGroupJoins: Counter<'group'>;
  /**
   * Registers a hook run synchronously right before `tsingest_instance_region_write_skew` and
   * `tsingest_region_count` are read at scrape time (so sliding-window values decay even when no
   * writes arrive). Returns a function that removes the hook.
   */
  onScrape(hook: () => void): () => void;
}

export interface CreateMetricsOptions {
  /** Register Node's default process metrics (prefix `tsingest_`). Default true. */
  readonly defaultMetrics?: boolean;
}

export function createMetrics(registry: Registry = new Registry(), options: CreateMetricsOptions = {}): Metrics {
  const hooks = new Set<() => void>();
  const runHooks = (): void => {
    for (const hook of hooks) hook();
  };
  const registers = [registry];

  const metrics: Metrics = {
    registry,
    regionWrites: new Counter({
      name: METRIC_NAMES.regionWrites,
      help: 'Rows written per HBase region (series of vanished regions are removed)',
      labelNames: ['table', 'region', 'server'] as const,
      registers,
    }),
    saltBucketWrites: new Counter({
      name: METRIC_NAMES.saltBucketWrites,
      help: 'Rows written per salt bucket',
      labelNames: ['table', 'bucket'] as const,
      registers,
    }),
    regionWriteSkew: new Gauge({
      name: METRIC_NAMES.regionWriteSkew,
      help: 'Per-instance: max / mean rows written per region by THIS instance over its sliding window (1 = even, region count = all in one region, 0 = no writes); the cluster-wide value is the recording rule table:tsingest_region_write_skew:ratio1m',
      labelNames: ['table'] as const,
      registers,
      collect: runHooks,
    }),
    regionCount: new Gauge({
      name: METRIC_NAMES.regionCount,
      help: 'Regions of the table in the current region map',
      labelNames: ['table'] as const,
      registers,
      collect: runHooks,
    }),
    regionInfo: new Gauge({
      name: METRIC_NAMES.regionInfo,
      help: 'Always 1: the start key (hex, "(first)" for the first region) of each region in the region map, to order per-region series by key',
      labelNames: ['table', 'region', 'start_key'] as const,
      registers,
    }),
    rowsWritten: new Counter({
      name: METRIC_NAMES.rowsWritten,
      help: 'Rows acknowledged by HBase',
      labelNames: ['table'] as const,
      registers,
    }),
    events: new Counter({
      name: METRIC_NAMES.events,
      help: 'Kafka events fully handled, by outcome (written | dlq)',
      labelNames: ['outcome'] as const,
      registers,
    }),
    batchRows: new Histogram({
      name: METRIC_NAMES.batchRows,
      help: 'Rows per HBase write batch',
      buckets: [...BATCH_ROWS_BUCKETS],
      registers,
    }),
    batchBytes: new Histogram({
      name: METRIC_NAMES.batchBytes,
      help: 'Encoded bytes per HBase write batch',
      buckets: [...BATCH_BYTES_BUCKETS],
      registers,
    }),
    hbaseRequestDuration: new Histogram({
      name: METRIC_NAMES.hbaseRequestDuration,
      help: 'HBase REST request duration by table, operation and status',
      labelNames: ['table', 'op', 'status'] as const,
      buckets: [...HBASE_DURATION_BUCKETS],
      registers,
    }),
    hbaseRetries: new Counter({
      name: METRIC_NAMES.hbaseRetries,
      help: 'HBase REST request retries',
      labelNames: ['table', 'op'] as const,
      registers,
    }),
    dlqRecords: new Counter({
      name: METRIC_NAMES.dlqRecords,
      help: 'Records sent to the dead-letter topic, by reason',
      labelNames: ['reason'] as const,
      registers,
    }),
    consumerLag: new Gauge({
      name: METRIC_NAMES.consumerLag,
      help: 'Kafka consumer lag (messages) per topic partition',
      labelNames: ['topic', 'partition'] as const,
      registers,
    }),
    endToEndLatency: new Histogram({
      name: METRIC_NAMES.endToEndLatency,
      help: 'Event timestamp to HBase write acknowledged, in seconds',
      buckets: [...END_TO_END_BUCKETS],
      registers,
    }),
    ready: new Gauge({ name: METRIC_NAMES.ready, help: '1 when the service is ready (running), else 0', registers }),
    state: new Gauge({
      name: METRIC_NAMES.state,
      help: 'Lifecycle state: 1 for the current state, 0 for the others',
      labelNames: ['state'] as const,
      registers,
    }),
    queueDepth: new Gauge({
      name: METRIC_NAMES.queueDepth,
      help: 'Records taken from Kafka and not yet committed, all partitions (bounded by batch.maxQueuedRows: fetching pauses at the bound)',
      registers,
    }),
    regionMapRefresh: new Counter({
      name: METRIC_NAMES.regionMapRefresh,
      help: 'Region map refreshes by table and outcome (ok | error)',
      labelNames: ['table', 'outcome'] as const,
      registers,
    }),
    catalogRowsWritten: new Counter({
      name: METRIC_NAMES.catalogRowsWritten,
      help: 'Series catalog rows (docs/SERIES-API.md) acknowledged by HBase: series this instance had not written before or had evicted from catalog.cacheSize; about 0 in the steady state',
      registers,
    }),
    consumerGroupJoins: new Counter({
      name: METRIC_NAMES.consumerGroupJoins,
      help: 'Times this instance joined a Kafka consumer group (group = ingest | rollup-owners): once at start, and again at every rebalance (a session lost, a member come or gone)',
      labelNames: ['group'] as const,
      registers,
    }),
    onScrape(hook) {
      hooks.add(hook);
      return () => {
        hooks.delete(hook);
      };
    },
  };

  // Start the series of known label values at 0 so rate() and alerts see the first increment.
  for (const outcome of EVENT_OUTCOMES) metrics.events.inc({ outcome }, 0);
  for (const reason of DLQ_REASONS) metrics.dlqRecords.inc({ reason }, 0);
  for (const group of CONSUMER_GROUPS) metrics.consumerGroupJoins.inc({ group }, 0);
  metrics.ready.set(0);

  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry, prefix: METRIC_PREFIX });
  return metrics;
}

/** What `initKnownSeries` needs from the region map (RegionMap implements it). */
export interface RegionOrderSource {
  regions(table: string): readonly { readonly name: string; readonly startKey: Buffer }[] | undefined;
  onChange(listener: (change: { readonly table: string }) => void): () => void;
}

export interface KnownSeries {
  /** Tables the service writes and keeps a region map of (data and index). */
  readonly tables: readonly string[];
  /** When given, `tsingest_region_info` follows its regions (now and on every change). */
  readonly regions?: RegionOrderSource;
}

/** The `start_key` label of a region: lowercase hex (so label order = key order), FIRST_REGION_START_KEY when empty. */
export function startKeyLabel(startKey: Buffer): string {
  return startKey.length === 0 ? FIRST_REGION_START_KEY : startKey.toString('hex');
}

/**
 * Starts the per-table series of known label values at 0 (retries per table and op, region map
 * refreshes per table and outcome), so the first retry or failed refresh is an increase `rate()` and
 * the alerts can see, and keeps `tsingest_region_info` in step with the region map. Called once by
 * the composition root with the configured tables; returns a function that stops following the map.
 */
export function initKnownSeries(metrics: Pick<Metrics, 'hbaseRetries' | 'regionMapRefresh' | 'regionInfo'>, known: KnownSeries): () => void {
  for (const table of known.tables) {
    for (const op of HBASE_RETRY_OPS) metrics.hbaseRetries.inc({ table, op }, 0);
    for (const outcome of REFRESH_OUTCOMES) metrics.regionMapRefresh.inc({ table, outcome }, 0);
  }
  const source = known.regions;
  if (source === undefined) return () => undefined;
  const published = new Map<string, { region: string; start_key: string }[]>();
  const publish = (table: string): void => {
    const regions = source.regions(table);
    if (regions === undefined) return;
    for (const labels of published.get(table) ?? []) metrics.regionInfo.remove({ table, ...labels });
    const next = regions.map((r) => ({ region: encodedRegionName(r.name), start_key: startKeyLabel(r.startKey) }));
    for (const labels of next) metrics.regionInfo.set({ table, ...labels }, 1);
    published.set(table, next);
  };
  for (const table of known.tables) publish(table);
  return source.onChange((change) => {
    if (known.tables.includes(change.table)) publish(change.table);
  });
}
