// npm run bench:series -- [--phases compat,site,catalog,write,live] [--reps 10] [--site-events 1000000]
//   [--site-ids 10000] [--site-reps 14] [--buckets 16] [--catalog-series 100000] [--catalog-requests 300]
//   [--catalog-refresh-ms 30000]
//   [--write-events 200000] [--write-rounds 2] [--profile] [--endpoints FILE] [--results-dir bench-results]
//   [--live-history 1000000] [--live-ids 10000] [--live-rate 500] [--live-minutes 5] [--live-refresh-ms 10000]
//   [--live-check-ms 100000] [--live-heavy-seconds 60] [--live-heap shipped|default]
//   [--storage-datasets sparse,dense] [--storage-sparse-events 200000] [--storage-sparse-ids 10000]
//   [--storage-dense-series 2000]
//   [--set key=value ...] (settings of our service while it answers the compat and site reads, e.g.
//   series.windowCache.maxBytes=0 for every answer read and computed, no window cache, no answer memo)
// The series API (docs/SERIES-API.md) against OpenTSDB 2.4.1 on the same machine and HBase
// (BENCHMARKS.md, "The series API against OpenTSDB"). Our service runs as its own process on fresh
// tables and topics (dropped at the end); the TSD on tables named for the run (dropped too).
//  compat   the compat suite (scripts/lib/compat) on the default data set: our service fed through
//           Kafka, waited on until every point reads back and the rollups summarised every hour,
//           then every query to both sides `--reps` times (compare + per-shape p50/p99)
//  site     a site's day raw and at 1h-avg, ~150k points per site-day (lib/bench/series-site.ts)
//  catalog  /api/suggest and /api/search/lookup with N series in the catalog (lib/bench/series-catalog.ts)
//  write    ingest CPU per event with catalog.enabled true vs false, A/B
//  live     the dashboard users open (ranges ending now) on both sides while both ingest, our ingest
//           process watched (lib/bench/series-live.ts); not in the default phases (about 15 minutes)
//  storage  bytes on disk per table, family and point, ours against the TSD (row compaction on, SNAPPY +
//           FAST_DIFF), the sparse Zipf set and a dense one (lib/bench/series-storage.ts, issue 38);
//           not in the default phases
// Writes bench-results/series-<date>.json.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_DATASET, endMs, events, points } from './lib/compat/dataset.ts';
import { parseDivergences } from './lib/compat/divergences.ts';
import { produceEvents } from './lib/compat/ours-load.ts';
import { compareWithOurs, latencyTable, type ShapeLatency } from './lib/compat/side-by-side.ts';
import { suite } from './lib/compat/suite.ts';
import { openTsd, waitForAll } from './lib/compat/tsd-session.ts';
import { catalogPhase, writePhase } from './lib/bench/series-catalog.ts';
import { createOurStack, rssSampler, startOurService, timedFetch, waitAllSizes, waitRollups } from './lib/bench/series-service.ts';
import { profileSummary } from './lib/bench/series-profile.ts';
import { sitePhase } from './lib/bench/series-site.ts';
import { livePhase } from './lib/bench/series-live.ts';
import { storagePhase } from './lib/bench/series-storage.ts';
import { storageTable, type StorageDataset } from './lib/bench/storage-plan.ts';
import { projectRoot, readEndpoints, stackLayout, stackPid, type StackEndpoints } from './lib/stack/config.ts';

const { values } = parseArgs({
  options: {
    phases: { type: 'string', default: 'compat,site,catalog,write' },
    reps: { type: 'string', default: '10' },
    'site-events': { type: 'string', default: '1000000' },
    'site-ids': { type: 'string', default: '10000' },
    'site-reps': { type: 'string', default: '14' },
    buckets: { type: 'string', default: '16' },
    'catalog-series': { type: 'string', default: '100000' },
    'catalog-requests': { type: 'string', default: '300' },
    'catalog-refresh-ms': { type: 'string', default: '30000' },
    'write-events': { type: 'string', default: '200000' },
    'write-rounds': { type: 'string', default: '2' },
    'live-history': { type: 'string', default: '1000000' },
    'live-ids': { type: 'string', default: '10000' },
    'live-rate': { type: 'string', default: '500' },
    'live-minutes': { type: 'string', default: '5' },
    'live-refresh-ms': { type: 'string', default: '10000' },
    'live-check-ms': { type: 'string', default: '100000' },
    'live-heavy-seconds': { type: 'string', default: '60' },
    'live-hold': { type: 'string' },
    'live-heap': { type: 'string', default: 'shipped' },
    'storage-datasets': { type: 'string', default: 'sparse,dense' },
    'storage-sparse-events': { type: 'string', default: '200000' },
    'storage-sparse-ids': { type: 'string', default: '10000' },
    'storage-dense-series': { type: 'string', default: '2000' },
    profile: { type: 'boolean', default: false },
    set: { type: 'string', multiple: true, default: [] },
    endpoints: { type: 'string' },
    'results-dir': { type: 'string', default: join(projectRoot, 'bench-results') },
  },
});
const say = (m: string): void => {
  process.stdout.write(`[bench:series] ${m}\n`);
};
const int = (name: string, v: string | undefined): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer, got ${String(v)}`);
  return n;
};

async function compatPhase(
  ep: StackEndpoints,
  run: string,
  o: { readonly reps: number; readonly profileDir: string | undefined; readonly sets: readonly string[] },
): Promise<Record<string, unknown>> {
  const { reps, profileDir, sets } = o;
  const ds = DEFAULT_DATASET;
  const divergences = parseDivergences(JSON.parse(readFileSync(join(projectRoot, 'docs/SERIES-API-DIVERGENCES.json'), 'utf8')));
  const stack = await createOurStack(ep, run, { buckets: 4, partitions: 2 }, say);
  try {
    let svc = await startOurService(stack, `${run}-g`, say);
    try {
      const tsd = await openTsd({ ep, dataset: ds, run, say });
      try {
        const t0 = performance.now();
        await produceEvents(ep.kafkaBrokers, stack.names.topic, events(ds), say);
        await waitForAll(svc.url, ds, say, { waitMs: 600_000, who: 'ours' });
        const hourly = { start: ds.startMs, end: endMs(ds) - 1, queries: [{ aggregator: 'avg', metric: 'temp', downsample: '1h-avg' }] };
        await waitRollups(svc.url, hourly, 600_000);
        await waitRollups(svc.url, { ...hourly, queries: [{ aggregator: 'avg', metric: 'hum', downsample: '1h-avg' }] }, 600_000);
        await waitAllSizes(svc, 600_000);
        say(`ours: every point read back and every hour and day summarised ${((performance.now() - t0) / 1000).toFixed(0)} s after producing`);
        // ours again, fresh, for the queries only (shipped catalog reread interval; its profile is the queries')
        await svc.stop();
        let profDir: string | undefined;
        if (profileDir !== undefined) {
          profDir = join(profileDir, `compat-${run}`);
          mkdirSync(profDir, { recursive: true });
        }
        svc = await startOurService(stack, `${run}-g`, say, { extra: ['series.catalogRefreshMs=30000', ...sets], cpuProfDir: profDir });
        await waitForAll(svc.url, ds, say, { waitMs: 120_000, who: 'ours (restarted)' });
        const queries = suite(ds);
        const plans: Record<string, string> = {};
        for (const q of queries) plans[q.name] = (await timedFetch(`${svc.url}${q.path}`, q.body === undefined ? {} : { body: q.body })).plan ?? '-';
        const rss = rssSampler(svc.pid);
        const r = await compareWithOurs({ tsdUrl: tsd.url, oursUrl: svc.url, queries, divergences, reps, say });
        const peakRss = rss.stop();
        await svc.stop();
        const profile = profDir === undefined ? undefined : profileSummary(profDir);
        return {
          ...(profile === undefined ? {} : { profile }),
          dataset: ds,
          points: points(ds).length,
          tsdVersion: tsd.version,
          reps,
          queries: queries.length,
          ok: r.ok,
          documented: r.documented,
          failures: r.failures,
          shapes: r.rows,
          perQuery: r.perQuery,
          plans,
          oursPeakRssBytes: peakRss,
        };
      } finally {
        await tsd.close();
      }
    } finally {
      await svc.stop();
    }
  } finally {
    await stack.drop();
  }
}

async function main(): Promise<void> {
  const phases = new Set(
    values.phases
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== ''),
  );
  for (const p of phases) if (!['compat', 'site', 'catalog', 'write', 'live', 'storage'].includes(p)) throw new Error(`unknown phase ${p}`);
  const endpointsFile = values.endpoints ?? stackLayout().endpointsFile;
  const ep = readEndpoints(endpointsFile);
  const runDir = dirname(endpointsFile);
  const hbasePid = stackPid('hbase', runDir);
  const restPid = stackPid('rest', runDir);
  const run = `bser_${Date.now().toString(36)}`;
  const started = new Date();
  const argv = process.argv.slice(2).join(' ');
  say(
    `run ${run}; phases ${[...phases].join(',')}; load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  const result: Record<string, unknown> = {
    startedAt: started.toISOString(),
    command: `npm run bench:series${argv === '' ? '' : ` -- ${argv}`}`,
    machine: { cpus: cpus().length, model: cpus()[0]?.model ?? '?', memBytes: totalmem(), node: process.version, loadAverageAtStart: loadavg() },
  };
  const stamp = started.toISOString().replace(/[:.]/g, '-');
  const file = join(values['results-dir'], `series-${stamp}.json`);
  const save = (): void => {
    mkdirSync(values['results-dir'], { recursive: true });
    writeFileSync(file, `${JSON.stringify({ ...result, loadAverageAtEnd: loadavg() }, null, 2)}\n`);
  };
  const profileDir = values.profile ? join(values['results-dir'], `series-${stamp}-profiles`) : undefined;
  if (phases.has('compat')) {
    result['compat'] = await compatPhase(ep, `${run}c`, { reps: int('reps', values.reps), profileDir, sets: values.set });
    say(`compat suite, per shape:\n${latencyTable((result['compat'] as { shapes: ShapeLatency[] }).shapes)}`);
    save();
  }
  if (phases.has('site')) {
    result['site'] = await sitePhase({
      ep,
      run: `${run}s`,
      events: int('site-events', values['site-events']),
      ids: int('site-ids', values['site-ids']),
      reps: int('site-reps', values['site-reps']),
      buckets: int('buckets', values.buckets),
      hbasePid,
      restPid,
      profileDir,
      sets: values.set,
      say,
    });
    save();
  }
  if (phases.has('catalog')) {
    result['catalog'] = await catalogPhase({
      ep,
      run: `${run}k`,
      series: int('catalog-series', values['catalog-series']),
      requests: int('catalog-requests', values['catalog-requests']),
      refreshMs: int('catalog-refresh-ms', values['catalog-refresh-ms']),
      say,
    });
    save();
  }
  if (phases.has('write')) {
    result['write'] = await writePhase({
      ep,
      run: `${run}w`,
      events: int('write-events', values['write-events']),
      ids: 10_000,
      rounds: int('write-rounds', values['write-rounds']),
      say,
    });
    save();
  }
  if (phases.has('live')) {
    result['live'] = await livePhase({
      ep,
      run: `${run}l`,
      historyEvents: int('live-history', values['live-history']),
      ids: int('live-ids', values['live-ids']),
      rate: int('live-rate', values['live-rate']),
      minutes: int('live-minutes', values['live-minutes']),
      refreshMs: int('live-refresh-ms', values['live-refresh-ms']),
      checkEveryMs: int('live-check-ms', values['live-check-ms']),
      heavySeconds: int('live-heavy-seconds', values['live-heavy-seconds']),
      buckets: int('buckets', values.buckets),
      sets: values.set,
      hold: values['live-hold'],
      heap: heapChoice(values['live-heap']),
      say,
    });
    save();
  }
  if (phases.has('storage')) {
    const storage = await storagePhase({
      ep,
      run: `${run}b`,
      datasets: datasetsOf(values['storage-datasets']),
      sparseEvents: int('storage-sparse-events', values['storage-sparse-events']),
      sparseIds: int('storage-sparse-ids', values['storage-sparse-ids']),
      denseSeries: int('storage-dense-series', values['storage-dense-series']),
      buckets: int('buckets', values.buckets),
      onDataset: (d) => {
        result['storage'] = { datasets: [...((result['storage'] as { datasets?: unknown[] } | undefined)?.datasets ?? []), d] };
        save();
      },
      say,
    });
    result['storage'] = storage;
    save();
    say(`storage, bytes on disk per point:\n\n${storage.datasets.map(storageTable).join('\n\n')}`);
  }
  save();
  say(`results in ${file}`);
}

function datasetsOf(v: string): StorageDataset[] {
  const out = v.split(',').map((s) => s.trim());
  for (const d of out) if (d !== 'sparse' && d !== 'dense') throw new Error(`--storage-datasets: sparse and/or dense, got ${d}`);
  return out as StorageDataset[];
}

function heapChoice(v: string): 'shipped' | 'default' {
  if (v !== 'shipped' && v !== 'default') throw new Error(`--live-heap: shipped or default, got ${v}`);
  return v;
}

main().catch((err: unknown) => {
  process.stderr.write(`[bench:series] FAILED: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  // a phase that failed half-way may leave a sampler timer or a client open; its finally blocks have run
  process.exit(1);
});
