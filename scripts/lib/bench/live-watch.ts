// What the live phase watches in our ingest process while the dashboards refresh: its /metrics every
// second (consumer lag, the event-loop delay it reports, consumer group joins), its VmRSS, and
// /healthz answering; summarised as p50 / p99 / max and the longest run of seconds with lag above 0,
// and kept second by second (with the rollup windows written and the canary's delay) so that a slow
// second can be put beside what happened in it.
import { memory, parseMetrics, sumOf, type Sample } from './child.ts';
import { startCanary, type CanaryFigures } from './loop-canary.ts';
import { percentile } from './load.ts';
import { histogramSnapshot, quantile, type HistogramSnapshot } from './service.ts';

const E2E = 'tsingest_end_to_end_latency_seconds';
const WINDOWS = 'tsingest_rollup_windows_written_total';

export interface WatchFigures {
  readonly samples: number;
  /**
   * consumer lag (events); longestAboveZeroSeconds: the longest run of samples above 0; with a feed
   * rate, longestBehindSeconds: the longest run above one second of that feed (under a steady feed the
   * lag is rarely 0 at a sampling instant: the events of the flush unit being written are in it)
   */
  readonly lag: {
    readonly p50: number;
    readonly p99: number;
    readonly max: number;
    readonly longestAboveZeroSeconds: number;
    readonly longestBehindSeconds?: number;
  };
  /**
   * the process's own event-loop delay (tsingest_event_loop_delay_seconds, read and reset at each
   * scrape: each sample is one second's p99 and max), in ms: the p99 and the largest of the per-second
   * p99s, and the largest delay seen
   */
  readonly eventLoopDelayMs: { readonly p99OfP99: number; readonly maxOfP99: number; readonly max: number; readonly samples: number };
  /** the same, seen by a bare Node process beside it (loop-canary.ts): the machine's scheduling alone */
  readonly machineEventLoopDelayMs: CanaryFigures;
  /** consumer group joins during the watch, per group label (each beyond the first join is a rebalance) */
  readonly groupJoins: Readonly<Record<string, number>>;
  readonly rssBytes: { readonly max: number };
  /** event ts → write acknowledged (its histogram over the watch), seconds */
  readonly endToEnd: { readonly p50: number; readonly p99: number; readonly events: number };
  /** /healthz round trips (ms), and those that failed or took over 1 s */
  readonly healthz: { readonly p99: number; readonly max: number; readonly failed: number };
  /** each second of the watch, from `startedAt`: what the summaries above are made of (the canary's: machineEventLoopDelayMs.perSecondP99) */
  readonly perSecond: PerSecond;
}

/** Second by second (one entry per scrape, null where it did not answer). */
export interface PerSecond {
  readonly startedAt: string;
  readonly lag: (number | null)[];
  /** the ingest's event-loop delay that second: p99 and max (ms) */
  readonly loopP99Ms: (number | null)[];
  readonly loopMaxMs: (number | null)[];
  /** rollup windows written since the watch began (tsingest_rollup_windows_written_total): where the job's runs fall */
  readonly windowsWritten: (number | null)[];
}

const stats = (xs: number[]): { p50: number; p99: number; max: number } => {
  const s = [...xs].sort((a, b) => a - b);
  return { p50: percentile(s, 50), p99: percentile(s, 99), max: s.at(-1) ?? Number.NaN };
};

function joins(samples: readonly Sample[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of samples) if (s.name === 'tsingest_consumer_group_joins_total') out.set(s.labels['group'] ?? '', s.value);
  return out;
}

/** Watches the process at `url` (pid `pid`) every second until stop(); `feedRate`: the events a second a feed sends it, if any. */
export function watchIngest(url: string, pid: number, feedRate?: number): { stop(): Promise<WatchFigures> } {
  const everyMs = 1000;
  const lag: number[] = [];
  const delayP99: number[] = [];
  const delayMax: number[] = [];
  const health: number[] = [];
  let healthFailed = 0;
  let rss = 0;
  let run = 0;
  let longest = 0;
  let behind = 0;
  let longestBehind = 0;
  let first: Map<string, number> | undefined;
  let last = new Map<string, number>();
  let stopped = false;
  const canary = startCanary();
  const perSecond: PerSecond = { startedAt: new Date().toISOString(), lag: [], loopP99Ms: [], loopMaxMs: [], windowsWritten: [] };
  const tenth = (x: number | null): number | null => (x === null ? null : Math.round(x * 10) / 10);
  let windowsAtStart: number | undefined;
  const second = (entry: { lag: number | null; p99: number | null; max: number | null; windows: number | null }): void => {
    perSecond.lag.push(entry.lag);
    perSecond.loopP99Ms.push(tenth(entry.p99));
    perSecond.loopMaxMs.push(tenth(entry.max));
    perSecond.windowsWritten.push(entry.windows);
  };
  // The delay gauge covers the time since its previous scrape: this first scrape, not counted, starts
  // the watch's first second here (without it, the first sample held everything since the process
  // started: its module loading, a history's drain).
  let busy: Promise<void> = fetch(`${url}/metrics?name=tsingest_event_loop_delay_seconds`, { signal: AbortSignal.timeout(10_000) }).then(
    async (r) => {
      await r.text();
    },
    () => undefined,
  );
  const e2e = async (): Promise<HistogramSnapshot | undefined> => {
    const res = await fetch(`${url}/metrics?name=${E2E}`, { signal: AbortSignal.timeout(10_000) }).catch(() => undefined);
    return res === undefined ? undefined : histogramSnapshot(parseMetrics(await res.text()), E2E);
  };
  const e2eStart = e2e();
  const tick = async (): Promise<void> => {
    const t0 = performance.now();
    const h = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(10_000) }).then(
      (r) => r.ok,
      () => false,
    );
    const ms = performance.now() - t0;
    health.push(ms);
    if (!h || ms > 1000) healthFailed++;
    try {
      rss = Math.max(rss, memory(pid).rss);
    } catch {
      // exited
    }
    const res = await fetch(
      `${url}/metrics?name=tsingest_consumer_lag&name=tsingest_event_loop_delay_seconds&name=tsingest_consumer_group_joins_total&name=${WINDOWS}`,
      { signal: AbortSignal.timeout(10_000) },
    ).catch(() => undefined);
    if (res === undefined) {
      second({ lag: null, p99: null, max: null, windows: null });
      return;
    }
    const samples = parseMetrics(await res.text());
    const windows = sumOf(samples, WINDOWS);
    windowsAtStart ??= windows;
    const l = sumOf(samples, 'tsingest_consumer_lag');
    lag.push(l);
    run = l > 0 ? run + everyMs / 1000 : 0;
    longest = Math.max(longest, run);
    behind = feedRate !== undefined && l > feedRate ? behind + everyMs / 1000 : 0;
    longestBehind = Math.max(longestBehind, behind);
    let p99: number | null = null;
    let max: number | null = null;
    for (const s of samples) {
      if (s.name !== 'tsingest_event_loop_delay_seconds') continue;
      if (s.labels['quantile'] === '0.99') delayP99.push((p99 = s.value * 1000));
      if (s.labels['quantile'] === '1') delayMax.push((max = s.value * 1000));
    }
    second({ lag: l, p99, max, windows: windows - windowsAtStart });
    last = joins(samples);
    first ??= last;
  };
  const timer = setInterval(() => {
    if (stopped) return;
    busy = busy.then(tick).catch(() => undefined);
  }, everyMs);
  return {
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await busy;
      const machineEventLoopDelayMs = canary.stop();
      // a figure of no second is not one: the bench fails rather than report it
      if (delayP99.length === 0) throw new Error(`the ingest watch read no event-loop delay from ${url}/metrics: nothing measured`);
      const groupJoins: Record<string, number> = {};
      for (const [g, n] of last) groupJoins[g] = n - (first?.get(g) ?? 0);
      const l = stats(lag);
      const h = stats(health);
      const [a, b] = [await e2eStart, await e2e()];
      const endToEnd =
        a === undefined || b === undefined
          ? { p50: Number.NaN, p99: Number.NaN, events: 0 }
          : { p50: quantile(b, a, 0.5), p99: quantile(b, a, 0.99), events: b.count - a.count };
      return {
        samples: lag.length,
        lag: { ...l, longestAboveZeroSeconds: longest, ...(feedRate === undefined ? {} : { longestBehindSeconds: longestBehind }) },
        eventLoopDelayMs: { p99OfP99: stats(delayP99).p99, maxOfP99: stats(delayP99).max, max: stats(delayMax).max, samples: delayP99.length },
        machineEventLoopDelayMs,
        groupJoins,
        rssBytes: { max: rss },
        endToEnd,
        healthz: { p99: h.p99, max: h.max, failed: healthFailed },
        perSecond,
      };
    },
  };
}
