// `npm run bench:series`, phases `catalog` and `write`.
// catalog: N series rows put straight into a fresh meta table with the catalog's row codec
// (src/catalog/rows.ts; no ingest), the service started on it, then /api/suggest and
// /api/search/lookup timed over HTTP, one request after another, p50/p99 per kind.
// write: the ingest's cost of the catalog, A/B: the same events drained by a fresh service with
// catalog.enabled true and false, alternating; CPU per event of the service process (/proc) over the
// first drain (every series new) and over a second batch of the same series a day later (the steady
// state: the catalog cache has them all), and tsingest_catalog_rows_written_total after each.
import { SERIES_QUALIFIER, seriesRow } from '../../../src/catalog/index.ts';
import type { RowCells } from '../../../src/hbase/index.ts';
import { generateEvents, prng } from '../../../src/demo/index.ts';
import { percentile } from './load.ts';
import { produceAll } from './service.ts';
import type { StackEndpoints } from '../stack/config.ts';
import { createOurStack, rssSampler, startOurService, timedFetch, waitUntil } from './series-service.ts';

const DAY = 86_400_000;

export interface KindLatency {
  readonly kind: string;
  readonly example: string;
  readonly n: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly meanResults: number;
}
export interface CatalogFigures {
  readonly series: number;
  readonly metrics: number;
  readonly ids: number;
  readonly putSeconds: number;
  readonly readySeconds: number;
  readonly refreshMs: number;
  readonly rss: number;
  readonly kinds: readonly KindLatency[];
}

const CAT_METRICS = 10;

function catalogSeries(n: number): { metric: string; id: string; tags: Record<string, string> }[] {
  const ids = Math.ceil(n / CAT_METRICS);
  const out: { metric: string; id: string; tags: Record<string, string> }[] = [];
  for (let i = 0; i < n; i++) {
    const idn = i % ids;
    out.push({
      metric: `sys.m${String(Math.floor(i / ids)).padStart(2, '0')}`,
      id: `host-${String(idn).padStart(6, '0')}`,
      tags: { site: `site-${idn % 50}`, rack: `rack-${idn % 500}` },
    });
  }
  return out;
}

export async function catalogPhase(o: {
  ep: StackEndpoints;
  run: string;
  series: number;
  requests: number;
  refreshMs: number;
  say: (m: string) => void;
}): Promise<CatalogFigures> {
  const { say } = o;
  const stack = await createOurStack(o.ep, o.run, { buckets: 4, partitions: 1 }, say);
  try {
    const column = Buffer.from(`${stack.cfg.tables.meta.family}:${SERIES_QUALIFIER.toString('latin1')}`, 'latin1');
    const all = catalogSeries(o.series);
    const t0 = performance.now();
    const chunks: RowCells[][] = [];
    for (let i = 0; i < all.length; i += 2000)
      chunks.push(
        all.slice(i, i + 2000).map((s) => {
          const r = seriesRow(s);
          return { row: r.key, cells: [{ column, value: r.value }] };
        }),
      );
    for (let i = 0; i < chunks.length; i += 4) await Promise.all(chunks.slice(i, i + 4).map((c) => stack.rest.put(stack.names.meta, c)));
    const putSeconds = (performance.now() - t0) / 1000;
    say(`[catalog] put ${all.length} series rows into ${stack.names.meta} in ${putSeconds.toFixed(1)} s`);
    // `--catalog-refresh-ms`: the shipped 30 s unless told (a reread of every row blocks the event loop while it decodes)
    const svc = await startOurService(stack, `${o.run}-g`, say, { extra: [`series.catalogRefreshMs=${o.refreshMs}`] });
    try {
      const r0 = performance.now();
      const ids = Math.ceil(o.series / CAT_METRICS);
      await waitUntil(
        'the catalog read',
        120_000,
        async () => {
          const b = (await timedFetch(`${svc.url}/api/search/lookup?m=sys.m00&limit=1`)).body as { totalResults?: number };
          return b.totalResults === ids;
        },
        { everyMs: 250 },
      );
      const readySeconds = (performance.now() - r0) / 1000;
      say(`[catalog] the service answers from all ${o.series} series ${readySeconds.toFixed(1)} s after it answered HTTP`);
      const random = prng(11);
      const pick = (n: number): number => Math.floor(random() * n);
      const m = (): string => `sys.m${String(pick(CAT_METRICS)).padStart(2, '0')}`;
      const kinds: { kind: string; url: () => string }[] = [
        { kind: 'suggest metrics (prefix)', url: () => `/api/suggest?type=metrics&q=sys.m&max=25` },
        { kind: 'suggest tagv (id prefix)', url: () => `/api/suggest?type=tagv&q=host-00${pick(10)}${pick(10)}&max=25` },
        { kind: 'suggest tagk', url: () => '/api/suggest?type=tagk&q=&max=25' },
        { kind: 'lookup metric{site=…} (series of a site)', url: () => `/api/search/lookup?m=${encodeURIComponent(`${m()}{site=site-${pick(50)}}`)}&limit=25` },
        {
          kind: 'lookup metric{id=…} (one series)',
          url: () => `/api/search/lookup?m=${encodeURIComponent(`${m()}{id=host-${String(pick(ids)).padStart(6, '0')}}`)}&limit=25`,
        },
        { kind: 'lookup metric (every series of a metric)', url: () => `/api/search/lookup?m=${m()}&limit=25` },
        { kind: 'lookup {rack=…} (any metric)', url: () => `/api/search/lookup?m=${encodeURIComponent(`{rack=rack-${pick(500)}}`)}&limit=25` },
      ];
      const rss = rssSampler(svc.pid);
      const out: KindLatency[] = [];
      for (const k of kinds) {
        for (let w = 0; w < 20; w++) await timedFetch(`${svc.url}${k.url()}`);
        const ms: number[] = [];
        let results = 0;
        let example = '';
        for (let i = 0; i < o.requests; i++) {
          const u = k.url();
          const r = await timedFetch(`${svc.url}${u}`);
          if (r.status !== 200) throw new Error(`[catalog] ${u} answered ${r.status}: ${JSON.stringify(r.body).slice(0, 300)}`);
          if (i === 0) example = u;
          ms.push(r.ms);
          const b = r.body as { totalResults?: number } | unknown[];
          results += Array.isArray(b) ? b.length : (b.totalResults ?? 0);
        }
        if (results === 0) throw new Error(`[catalog] ${k.kind}: ${o.requests} requests found nothing: the catalog under test is empty`);
        const s = [...ms].sort((a, b) => a - b);
        const kl = {
          kind: k.kind,
          example,
          n: s.length,
          p50: percentile(s, 50),
          p99: percentile(s, 99),
          max: s.at(-1) ?? Number.NaN,
          meanResults: results / s.length,
        };
        say(
          `[catalog] ${k.kind}: p50 ${kl.p50.toFixed(2)} ms, p99 ${kl.p99.toFixed(2)} ms, max ${kl.max.toFixed(1)} ms (${kl.n} requests, ${kl.meanResults.toFixed(0)} results on average; e.g. ${example})`,
        );
        out.push(kl);
      }
      const peak = rss.stop();
      say(`[catalog] service VmRSS with ${o.series} series: ${(peak / 2 ** 20).toFixed(0)} MiB (peak during the requests)`);
      return { series: o.series, refreshMs: o.refreshMs, metrics: CAT_METRICS, ids, putSeconds, readySeconds, rss: peak, kinds: out };
    } finally {
      await svc.stop();
    }
  } finally {
    await stack.drop();
  }
}

export interface WriteRun {
  readonly catalog: boolean;
  readonly round: number;
  readonly drainSeconds: number;
  readonly cpuMsPer1000: number;
  readonly rowsWritten: number;
  readonly steadyCpuMsPer1000: number;
  readonly steadyRowsWritten: number;
  readonly steadySeconds: number;
}
export interface WriteFigures {
  readonly events: number;
  readonly ids: number;
  readonly runs: readonly WriteRun[];
}

/** A/B rounds: catalog on, off (order alternating per round), each on a fresh topic and consumer group, the same tables. */
export async function writePhase(o: {
  ep: StackEndpoints;
  run: string;
  events: number;
  ids: number;
  rounds: number;
  say: (m: string) => void;
}): Promise<WriteFigures> {
  const { say } = o;
  // the rollup job kept out of the drain (its markers are still written): only the write path is timed
  const stack = await createOurStack(o.ep, o.run, { buckets: 4, partitions: 8 }, say);
  const dayStart = Math.floor((Date.now() - 3 * DAY) / DAY) * DAY;
  const gen = { count: o.events, ids: o.ids, startTs: dayStart, stepMs: 10, seed: 42 };
  const runs: WriteRun[] = [];
  try {
    for (let round = 0; round < o.rounds; round++) {
      const order = round % 2 === 0 ? [true, false] : [false, true];
      for (const catalog of order) {
        const topic = `${stack.names.topic}-${round}-${catalog ? 'on' : 'off'}`;
        await stack.topic(topic, 8);
        await produceAll(stack.kafka, topic, gen);
        const t0 = performance.now();
        const svc = await startOurService(stack, `${topic}-g`, say, {
          extra: [`kafka.topic=${topic}`, `catalog.enabled=${String(catalog)}`, 'rollup.markerSettleMs=600000'],
        });
        try {
          await waitUntil('the first batch written', 1_800_000, async () => (await svc.processed()) >= o.events, { everyMs: 100 });
          const drainSeconds = (performance.now() - t0) / 1000;
          const cpu1 = svc.child.cpuMs();
          const rows1 = await svc.counter('tsingest_catalog_rows_written_total');
          // the same series a day later
          const s0 = performance.now();
          await produceAll(
            stack.kafka,
            topic,
            (function* () {
              for (const e of generateEvents(gen)) yield { ...e, ts: e.ts + DAY };
            })(),
          );
          await waitUntil('the second batch written', 1_800_000, async () => (await svc.processed()) >= 2 * o.events, { everyMs: 100 });
          const steadySeconds = (performance.now() - s0) / 1000;
          const cpu2 = svc.child.cpuMs();
          const rows2 = await svc.counter('tsingest_catalog_rows_written_total');
          if (catalog && rows1 === 0) throw new Error(`[write] round ${round}: the catalog was on and wrote no row: nothing of its cost was measured`);
          const r: WriteRun = {
            catalog,
            round,
            drainSeconds,
            cpuMsPer1000: (cpu1 / o.events) * 1000,
            rowsWritten: rows1,
            steadyCpuMsPer1000: ((cpu2 - cpu1) / o.events) * 1000,
            steadyRowsWritten: rows2 - rows1,
            steadySeconds,
          };
          say(
            `[write] round ${round} catalog ${catalog ? 'on ' : 'off'}: drain ${drainSeconds.toFixed(1)} s, ${r.cpuMsPer1000.toFixed(1)} CPU ms per 1,000 events (start-up included), ${rows1} catalog rows; steady (same series a day later) ${r.steadyCpuMsPer1000.toFixed(1)} CPU ms per 1,000, ${r.steadyRowsWritten} catalog rows`,
          );
          runs.push(r);
        } finally {
          await svc.stop();
        }
      }
    }
    return { events: o.events, ids: o.ids, runs };
  } finally {
    await stack.drop();
  }
}
