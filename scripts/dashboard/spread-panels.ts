// Overview and region-write-spread sections of the tsingest dashboard.
import { barGauge, sized, stat, statusHistory, timeSeries, type Section, type Step } from './grafana.ts';

/** Label matchers every query carries: the dashboard's job and table variables. */
export const JOB = 'job=~"$job"';
export const JOB_TABLE = 'job=~"$job",table=~"$table"';

/**
 * Cluster-wide skew (1 = even, region count = all in one region). Salted keys with Zipf-distributed
 * ids sit around 2-4 (the demo shows ~3): one hot id stays in one bucket by design. Yellow from 4,
 * red from 8 = the busiest region does 8× the mean, the alert threshold (TsingestRegionWriteSkewHigh).
 */
export const SKEW_STEPS: readonly Step[] = [
  { color: 'green', value: null },
  { color: 'yellow', value: 4 },
  { color: 'red', value: 8 },
];

const SKEW_TEXT =
  '1.0 = perfectly even; the region count (16 with the default salt buckets) = every write in one region. ' +
  'Salted keys with Zipf-distributed ids normally read 2-4 (the npm start demo: ~3), because salting by hash(id) keeps each id in one bucket, ' +
  'so a very hot id keeps its region busier than the rest; that is expected, not a fault. Yellow from 4 (one region at 4× the mean), ' +
  'red from 8 (one region doing the work of 8: the alert TsingestRegionWriteSkewHigh fires after 15 minutes, or at 75% of all writes on small tables).';

const overview: Section = {
  title: 'Overview',
  panels: [
    sized(
      4,
      4,
      stat({
        title: 'Instances not ready',
        description:
          'Scraped instances that are down (up == 0) or up but not ready (tsingest_ready != 1: starting, degraded, draining, stopped, failed), for the selected jobs. ' +
          '0 = every instance is ready. When every instance is down this shows their count, not READY. "No data" means Prometheus scrapes no instance of the job at all: check its targets.',
        targets: [{ expr: `count(up{${JOB}}) - (count(tsingest_ready{${JOB}} == 1) or vector(0))`, legendFormat: 'not ready' }],
        unit: 'none',
        decimals: 0,
        steps: [
          { color: 'green', value: null },
          { color: 'red', value: 1 },
        ],
        mappings: [{ type: 'value', options: { '0': { text: 'ALL READY', color: 'green', index: 0 } } }],
      }),
    ),
    sized(
      4,
      4,
      stat({
        title: 'Rows written /s',
        description: 'Rows acknowledged by HBase per second, all selected tables (data and index rows): rate of tsingest_rows_written_total.',
        targets: [{ expr: `sum(rate(tsingest_rows_written_total{${JOB_TABLE}}[$__rate_interval]))`, legendFormat: 'rows/s' }],
        unit: 'suffix: rows/s',
        decimals: 1,
        steps: [{ color: 'blue', value: null }],
        graph: true,
      }),
    ),
    sized(
      5,
      4,
      stat({
        title: 'Region write skew (cluster)',
        description: `Cluster-wide max / mean rows per region over the last minute, per table, from the per-region counters of every instance (recording rule table:tsingest_region_write_skew:ratio1m in deploy/prometheus/rules; the mean counts idle regions). ${SKEW_TEXT}`,
        targets: [{ expr: 'max by (table) (table:tsingest_region_write_skew:ratio1m{table=~"$table"})', legendFormat: '{{table}}' }],
        unit: 'none',
        decimals: 2,
        steps: SKEW_STEPS,
        graph: true,
      }),
    ),
    sized(
      4,
      4,
      stat({
        title: 'Consumer lag',
        description:
          'Messages not yet consumed, summed over partitions (each partition once, at the largest value any instance reports): tsingest_consumer_lag.',
        targets: [{ expr: `sum(max by (topic, partition) (tsingest_consumer_lag{${JOB}}))`, legendFormat: 'lag' }],
        unit: 'short',
        steps: [
          { color: 'green', value: null },
          { color: 'yellow', value: 10000 },
          { color: 'red', value: 100000 },
        ],
        graph: true,
      }),
    ),
    sized(
      3,
      4,
      stat({
        title: 'Write queue depth',
        description: 'Records taken from Kafka and not yet committed, all instances (tsingest_queue_depth; each instance is bounded by batch.maxQueuedRows).',
        targets: [{ expr: `sum(tsingest_queue_depth{${JOB}})`, legendFormat: 'rows' }],
        unit: 'short',
        steps: [{ color: 'green', value: null }],
      }),
    ),
    sized(
      4,
      4,
      stat({
        title: 'DLQ /s',
        description: 'Records sent to the dead-letter topic per second, all reasons (tsingest_dlq_records_total).',
        targets: [{ expr: `sum(rate(tsingest_dlq_records_total{${JOB}}[$__rate_interval]))`, legendFormat: 'dlq/s' }],
        unit: 'suffix: /s',
        decimals: 2,
        steps: [
          { color: 'green', value: null },
          { color: 'orange', value: 0.001 },
        ],
        graph: true,
      }),
    ),
  ],
};

/** Per-region rate with the region's start key (tsingest_region_info) as a label; series sort by start key. */
const REGIONS_BY_START_KEY =
  'sum by (start_key) (' +
  `sum by (table, region) (rate(tsingest_region_writes_total{${JOB_TABLE}}[$__rate_interval])) ` +
  `* on (table, region) group_left (start_key) max by (table, region, start_key) (tsingest_region_info{${JOB_TABLE}})` +
  ')';

const spread: Section = {
  title: 'Region write spread',
  panels: [
    sized(
      24,
      12,
      statusHistory({
        title: 'Writes per region over time: $table (key visualizer)',
        description:
          'One row per region of the table, ordered by start key (hex; "(first)" = the region without a start key), one cell per time step, colour = rows written per second, all instances summed. ' +
          'Like the Bigtable key visualizer: a bright horizontal band is a hot region, a bright diagonal a monotonic key walking through the regions, even colour is an even spread. ' +
          'Rows come from tsingest_region_writes_total joined with tsingest_region_info{start_key}; one panel per selected table.',
        targets: [{ expr: REGIONS_BY_START_KEY, legendFormat: '{{start_key}}' }],
        unit: 'suffix: rows/s',
        min: 0,
        scheme: 'continuous-BlYlRd',
        repeat: 'table',
        maxDataPoints: 120,
        interval: '10s',
      }),
    ),
    sized(
      16,
      10,
      timeSeries({
        title: 'Writes per region /s',
        description:
          'Row writes per second per HBase region (rate of tsingest_region_writes_total{table,region,server}, all instances), for the selected tables. ' +
          'Pre-split salted tables show one line per salt bucket at similar heights; one line far above the others is a hot region.',
        targets: [
          { expr: `sum by (table, region) (rate(tsingest_region_writes_total{${JOB_TABLE}}[$__rate_interval]))`, legendFormat: '{{table}} {{region}}' },
        ],
        unit: 'suffix: rows/s',
        fill: 10,
        legendCalcs: ['mean', 'max'],
      }),
    ),
    sized(
      8,
      10,
      barGauge({
        title: 'Writes per salt bucket /s',
        description:
          'Row writes per second per salt bucket (rate of tsingest_salt_bucket_writes_total{table,bucket}). With MD5-based salting the bars are level unless a few ids dominate the traffic.',
        targets: [
          { expr: `sum by (bucket) (rate(tsingest_salt_bucket_writes_total{${JOB_TABLE}}[$__rate_interval]))`, legendFormat: '{{bucket}}', instant: true },
        ],
        unit: 'suffix: rows/s',
        min: 0,
        orientation: 'vertical',
      }),
    ),
    sized(
      12,
      8,
      timeSeries({
        title: 'Region write skew: cluster-wide and per instance',
        description:
          `"cluster": max / mean rows per region of the table over the last minute, all instances together (recording rule table:tsingest_region_write_skew:ratio1m). ` +
          `Per instance: tsingest_instance_region_write_skew, the same ratio over only the rows THAT instance wrote (its partitions), so with several instances each reads higher than the table really is. ${SKEW_TEXT}`,
        targets: [
          { expr: 'max by (table) (table:tsingest_region_write_skew:ratio1m{table=~"$table"})', legendFormat: '{{table}} cluster' },
          { expr: `max by (table, instance) (tsingest_instance_region_write_skew{${JOB_TABLE}})`, legendFormat: '{{table}} {{instance}}' },
        ],
        unit: 'none',
        decimals: 2,
        min: 0,
        steps: SKEW_STEPS,
        thresholdLines: true,
      }),
    ),
    sized(
      6,
      8,
      timeSeries({
        title: 'Regions per table',
        description: 'Regions of each table in the region map (tsingest_region_count). Changes on splits, merges and pre-split creation.',
        targets: [{ expr: `max by (table) (tsingest_region_count{${JOB_TABLE}})`, legendFormat: '{{table}}' }],
        unit: 'short',
        decimals: 0,
        min: 0,
      }),
    ),
    sized(
      6,
      8,
      barGauge({
        title: 'Writes per region server /s',
        description:
          'Row writes per second per region server (tsingest_region_writes_total summed by server): whether the regions, and so the load, are spread over the servers.',
        targets: [{ expr: `sum by (server) (rate(tsingest_region_writes_total{${JOB_TABLE}}[$__rate_interval]))`, legendFormat: '{{server}}', instant: true }],
        unit: 'suffix: rows/s',
        min: 0,
        orientation: 'horizontal',
      }),
    ),
    sized(
      12,
      8,
      barGauge({
        title: 'Hot ids (events in the last minute)',
        description:
          'The 10 ids with the most events in the sliding window, all instances summed (tsingest_hot_id_events{id}, a bounded top-K upper estimate per instance). ' +
          'A plain id writes all its rows into one salt bucket, so this explains a single hot region on the heatmap; a spread id (next panel) writes into K buckets.',
        targets: [{ expr: `topk(10, sum by (id) (tsingest_hot_id_events{${JOB}}))`, legendFormat: '{{id}}', instant: true }],
        unit: 'short',
        min: 0,
        orientation: 'horizontal',
      }),
    ),
    sized(
      6,
      8,
      barGauge({
        title: 'Hot ids: salt buckets K',
        description:
          'Salt buckets each current hot id spreads its events over now (tsingest_hot_id_buckets{id}, the largest any instance reports): 1 is a plain id in one bucket; ' +
          'a promoted id gets K from its epoch on (docs/HOT-IDS.md).',
        targets: [{ expr: `topk(10, max by (id) (tsingest_hot_id_buckets{${JOB}}))`, legendFormat: '{{id}}', instant: true }],
        unit: 'short',
        decimals: 0,
        min: 0,
        orientation: 'horizontal',
      }),
    ),
    sized(
      6,
      8,
      timeSeries({
        title: 'Spread ids and promotions',
        description:
          'Ids spread over several salt buckets in the registry (tsingest_spread_ids, the largest instance view) and the epochs added per 10 minutes by the instances (tsingest_spread_promotions_total, automatic and manual).',
        targets: [
          { expr: `max(tsingest_spread_ids{${JOB}})`, legendFormat: 'spread ids' },
          { expr: `sum by (origin) (increase(tsingest_spread_promotions_total{${JOB}}[10m]))`, legendFormat: 'promotions ({{origin}}) / 10 min' },
        ],
        unit: 'short',
        decimals: 0,
        min: 0,
      }),
    ),
  ],
};

export const SPREAD_SECTIONS: readonly Section[] = [overview, spread];
