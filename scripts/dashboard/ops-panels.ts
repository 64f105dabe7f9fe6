// Throughput, HBase, Kafka and rollup sections of the tsingest dashboard.
import { sized, stateTimeline, timeSeries, type Section } from './grafana.ts';
import { JOB, JOB_TABLE } from './spread-panels.ts';

const rate = (metric: string, selector: string): string => `rate(${metric}{${selector}}[$__rate_interval])`;
const quantile = (q: number, by: string, of: { readonly bucket: string; readonly selector: string; readonly range?: string }): string =>
  `histogram_quantile(${q}, sum by (${by}) (rate(${of.bucket}{${of.selector}}[${of.range ?? '$__rate_interval'}])))`;

const throughput: Section = {
  title: 'Throughput and batches',
  panels: [
    sized(
      8,
      8,
      timeSeries({
        title: 'Rows written /s by table',
        description: 'Rows acknowledged by HBase per second per table (tsingest_rows_written_total): data rows, index rows (one per indexed tag of an event).',
        targets: [{ expr: `sum by (table) (${rate('tsingest_rows_written_total', JOB_TABLE)})`, legendFormat: '{{table}}' }],
        unit: 'suffix: rows/s',
        min: 0,
      }),
    ),
    sized(
      8,
      8,
      timeSeries({
        title: 'Events /s by outcome',
        description: 'Kafka events fully handled per second (tsingest_events_total): written to HBase, or sent to the DLQ.',
        targets: [{ expr: `sum by (outcome) (${rate('tsingest_events_total', JOB)})`, legendFormat: '{{outcome}}' }],
        unit: 'suffix: events/s',
        min: 0,
      }),
    ),
    sized(
      8,
      8,
      timeSeries({
        title: 'Batch size (rows)',
        description:
          'Rows per HBase write batch (histogram tsingest_batch_rows): p50, p99 and mean. Batches close on batch.maxRows, batch.maxBytes or the Kafka fetch wait.',
        targets: [
          { expr: quantile(0.5, 'le', { bucket: 'tsingest_batch_rows_bucket', selector: JOB }), legendFormat: 'p50' },
          { expr: quantile(0.99, 'le', { bucket: 'tsingest_batch_rows_bucket', selector: JOB }), legendFormat: 'p99' },
          { expr: `sum(${rate('tsingest_batch_rows_sum', JOB)}) / sum(${rate('tsingest_batch_rows_count', JOB)})`, legendFormat: 'mean' },
        ],
        unit: 'short',
        min: 0,
      }),
    ),
    sized(
      8,
      8,
      timeSeries({
        title: 'Batch size (bytes)',
        description: 'Encoded bytes per HBase write batch (histogram tsingest_batch_bytes): p50 and p99.',
        targets: [
          { expr: quantile(0.5, 'le', { bucket: 'tsingest_batch_bytes_bucket', selector: JOB }), legendFormat: 'p50' },
          { expr: quantile(0.99, 'le', { bucket: 'tsingest_batch_bytes_bucket', selector: JOB }), legendFormat: 'p99' },
        ],
        unit: 'bytes',
        min: 0,
      }),
    ),
    sized(
      8,
      8,
      timeSeries({
        title: 'Write queue depth',
        description:
          'Records taken from Kafka and not yet committed, per instance (tsingest_queue_depth; bounded by batch.maxQueuedRows, fetching pauses at the bound). Sitting at the bound means HBase is slower than Kafka delivers.',
        targets: [{ expr: `tsingest_queue_depth{${JOB}}`, legendFormat: '{{instance}}' }],
        unit: 'short',
        min: 0,
      }),
    ),
    sized(
      8,
      8,
      stateTimeline({
        title: 'Readiness',
        description: 'Per instance: READY (tsingest_ready = 1), NOT READY (up but starting, degraded, draining or stopped) or DOWN (the scrape fails: up = 0).',
        targets: [
          {
            expr: `(tsingest_ready{${JOB}} and on (job, instance) up{${JOB}} == 1) or on (job, instance) (up{${JOB}} == 0) - 1`,
            legendFormat: '{{instance}}',
          },
        ],
        unit: 'none',
        steps: [
          { color: 'red', value: null },
          { color: 'orange', value: 0 },
          { color: 'green', value: 1 },
        ],
        mappings: [
          {
            type: 'value',
            options: {
              '-1': { text: 'DOWN', color: 'red', index: 0 },
              '0': { text: 'NOT READY', color: 'orange', index: 1 },
              '1': { text: 'READY', color: 'green', index: 2 },
            },
          },
        ],
      }),
    ),
  ],
};

const hbase: Section = {
  title: 'HBase REST',
  panels: [
    sized(
      8,
      8,
      timeSeries({
        title: 'Request latency p50 by op',
        description: 'Median HBase REST request duration by operation (histogram tsingest_hbase_request_duration_seconds).',
        targets: [{ expr: quantile(0.5, 'le, op', { bucket: 'tsingest_hbase_request_duration_seconds_bucket', selector: JOB_TABLE }), legendFormat: '{{op}}' }],
        unit: 's',
        min: 0,
      }),
    ),
    sized(
      8,
      8,
      timeSeries({
        title: 'Request latency p99 by op',
        description: '99th percentile HBase REST request duration by operation (histogram tsingest_hbase_request_duration_seconds).',
        targets: [
          { expr: quantile(0.99, 'le, op', { bucket: 'tsingest_hbase_request_duration_seconds_bucket', selector: JOB_TABLE }), legendFormat: '{{op}}' },
        ],
        unit: 's',
        min: 0,
      }),
    ),
    sized(
      8,
      8,
      timeSeries({
        title: 'Requests /s by op and status',
        description:
          'HBase REST requests per second by operation and status (200 = acknowledged; 5xx/429/timeouts are retried; 400 rows are dead-lettered as hbase_rejected).',
        targets: [{ expr: `sum by (op, status) (${rate('tsingest_hbase_request_duration_seconds_count', JOB_TABLE)})`, legendFormat: '{{op}} {{status}}' }],
        unit: 'reqps',
        min: 0,
      }),
    ),
    sized(
      12,
      8,
      timeSeries({
        title: 'Retries /s',
        description:
          'HBase REST request retries per second by table and operation (tsingest_hbase_retries_total; every configured table starts at 0). Sustained retries: alert TsingestHBaseRetries.',
        targets: [{ expr: `sum by (table, op) (${rate('tsingest_hbase_retries_total', JOB_TABLE)})`, legendFormat: '{{table}} {{op}}' }],
        unit: 'suffix: /s',
        min: 0,
      }),
    ),
    sized(
      12,
      8,
      timeSeries({
        title: 'Region map refreshes /s',
        description:
          'Region map refreshes (GET /<table>/regions) per second by table and outcome (tsingest_region_map_refresh_total). Only errors for 15 minutes: alert TsingestRegionMapRefreshFailing.',
        targets: [{ expr: `sum by (table, outcome) (${rate('tsingest_region_map_refresh_total', JOB_TABLE)})`, legendFormat: '{{table}} {{outcome}}' }],
        unit: 'suffix: /s',
        min: 0,
      }),
    ),
  ],
};

const kafka: Section = {
  title: 'Kafka and latency',
  panels: [
    sized(
      12,
      8,
      timeSeries({
        title: 'Consumer lag by partition',
        description:
          'Messages not yet consumed per topic partition (tsingest_consumer_lag, largest value any instance reports). Growing for 15 minutes: alert TsingestConsumerLagGrowing.',
        targets: [{ expr: `max by (topic, partition) (tsingest_consumer_lag{${JOB}})`, legendFormat: '{{topic}}/{{partition}}' }],
        unit: 'short',
        min: 0,
      }),
    ),
    sized(
      12,
      8,
      timeSeries({
        title: 'DLQ records /s by reason',
        description:
          'Records dead-lettered per second by reason (tsingest_dlq_records_total; every reason starts at 0). The reasons are the closed list of src/events/reject.ts.',
        targets: [{ expr: `sum by (reason) (${rate('tsingest_dlq_records_total', JOB)})`, legendFormat: '{{reason}}' }],
        unit: 'suffix: /s',
        min: 0,
      }),
    ),
    sized(
      12,
      8,
      timeSeries({
        title: 'End-to-end latency',
        description:
          'Event timestamp to HBase write acknowledged (histogram tsingest_end_to_end_latency_seconds): p50 and p99. Includes producer delay and clock skew; replays of old events read high.',
        targets: [
          { expr: quantile(0.5, 'le', { bucket: 'tsingest_end_to_end_latency_seconds_bucket', selector: JOB }), legendFormat: 'p50' },
          { expr: quantile(0.99, 'le', { bucket: 'tsingest_end_to_end_latency_seconds_bucket', selector: JOB }), legendFormat: 'p99' },
        ],
        unit: 's',
        min: 0,
      }),
    ),
    sized(
      12,
      8,
      timeSeries({
        title: 'Event loop delay',
        description:
          'How late each instance ran timers that were due, between two scrapes (tsingest_event_loop_delay_seconds: p99 and the maximum): the longest the event loop was held by synchronous work. While it is held, /healthz does not answer and no Kafka heartbeat is sent; above 1 s: alert TsingestEventLoopStalled.',
        targets: [
          { expr: `max by (instance) (tsingest_event_loop_delay_seconds{${JOB},quantile="1"})`, legendFormat: 'max {{instance}}' },
          { expr: `max by (instance) (tsingest_event_loop_delay_seconds{${JOB},quantile="0.99"})`, legendFormat: 'p99 {{instance}}' },
        ],
        unit: 's',
        min: 0,
      }),
    ),
    sized(
      12,
      8,
      timeSeries({
        title: 'Queries at the concurrency caps',
        description:
          'Queries in flight and waiting for a slot per instance (tsingest_http_queries_in_flight, tsingest_http_queries_waiting), and per second those admitted after a wait and those turned away with 429 (tsingest_http_queries_waited_total, tsingest_http_queries_turned_away_total). Waits with no 429s: a dashboard wider than http.limits.maxConcurrentPerIdentity, answered a little later. 429s: errors on a screen; raise http.limits if the instance has the memory, or add a query replica.',
        targets: [
          { expr: `max by (instance) (tsingest_http_queries_in_flight{${JOB}})`, legendFormat: 'in flight {{instance}}' },
          { expr: `max by (instance) (tsingest_http_queries_waiting{${JOB}})`, legendFormat: 'waiting {{instance}}' },
          { expr: `sum(${rate('tsingest_http_queries_waited_total', JOB)})`, legendFormat: 'admitted after a wait /s' },
          { expr: `sum(${rate('tsingest_http_queries_turned_away_total', JOB)})`, legendFormat: 'turned away (429) /s' },
        ],
        unit: 'short',
        min: 0,
      }),
    ),
  ],
};

const rollups: Section = {
  title: 'Rollups',
  panels: [
    sized(
      6,
      8,
      timeSeries({
        title: 'Rollup lag by window',
        description:
          'Seconds since the end of the oldest closed window not yet rolled up, per window size (tsingest_rollup_lag_seconds; 0 = caught up). Includes rollup.graceMs. Above 30 minutes for 10 minutes: alert TsingestRollupLagHigh (red line).',
        targets: [{ expr: `max by (window) (tsingest_rollup_lag_seconds{${JOB}})`, legendFormat: '{{window}}' }],
        unit: 's',
        min: 0,
        steps: [
          { color: 'green', value: null },
          { color: 'red', value: 1800 },
        ],
        thresholdLines: true,
      }),
    ),
    sized(
      6,
      8,
      timeSeries({
        title: 'Pending rollup markers by window',
        description: 'Closed windows still marked for a rollup, as seen by the last job run, per window size (tsingest_rollup_pending_markers).',
        targets: [{ expr: `max by (window) (tsingest_rollup_pending_markers{${JOB}})`, legendFormat: '{{window}}' }],
        unit: 'short',
        min: 0,
      }),
    ),
    sized(
      6,
      8,
      timeSeries({
        title: 'Rollup windows written /s',
        description:
          'Windows recomputed with a summary row written, per second and window size (tsingest_rollup_windows_written_total); a window without data writes none and is not counted.',
        targets: [{ expr: `sum by (window) (${rate('tsingest_rollup_windows_written_total', JOB)})`, legendFormat: '{{window}}' }],
        unit: 'suffix: windows/s',
        min: 0,
      }),
    ),
    sized(
      6,
      8,
      timeSeries({
        title: 'Rollup run duration',
        description:
          'Duration of one rollup job run (histogram tsingest_rollup_run_duration_seconds) over the last 5 minutes: mean and p99. Runs are rollup.intervalMs apart, so a short rate window would mostly be empty.',
        targets: [
          {
            expr: `sum(rate(tsingest_rollup_run_duration_seconds_sum{${JOB}}[5m])) / sum(rate(tsingest_rollup_run_duration_seconds_count{${JOB}}[5m]))`,
            legendFormat: 'mean',
          },
          { expr: quantile(0.99, 'le', { bucket: 'tsingest_rollup_run_duration_seconds_bucket', selector: JOB, range: '5m' }), legendFormat: 'p99' },
        ],
        unit: 's',
        min: 0,
      }),
    ),
  ],
};

export const OPS_SECTIONS: readonly Section[] = [throughput, hbase, kafka, rollups];
