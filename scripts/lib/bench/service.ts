// Benchmark phases that go through Kafka: bulk produce, the real service (its own process) draining
// the backlog, and a paced steady-state phase for end-to-end latency.
import type { Kafka, Message, Producer } from 'kafkajs';
import { CompressionTypes } from 'kafkajs';
import { cpuMs, startServiceChild, sumOf, type Sample, type ServiceChild } from './child.ts';
import { generateEvents, type GeneratedEvent } from '../../../src/demo/index.ts';
import { computeSkew } from '../../../src/load/index.ts';
import { METRIC_NAMES } from '../../../src/metrics/index.ts';
import type { GenParams } from './rows.ts';

const SEND_BATCH = 10_000;
const SENDS_IN_FLIGHT = 4;

async function send(producer: Producer, topic: string, messages: Message[]): Promise<void> {
  await producer.send({ topic, acks: -1, compression: CompressionTypes.None, messages });
}

/** Produces the generated events (or any events); returns seconds taken (acks -1, no compression, large batches). */
/** The 50 % load phase: end-to-end latency and what it is made of (seconds; NaN when not run). */
export interface SteadyFigures {
  readonly events: number;
  readonly targetRate: number;
  readonly achievedRate: number;
  readonly p50: number;
  readonly p99: number;
  readonly samples: number;
  /** one REST put request (any table), acknowledged */
  readonly putP50: number;
  readonly putP99: number;
  readonly puts: number;
  /** flush units written, and their mean size */
  readonly units: number;
  readonly eventsPerUnit: number;
}

export const NO_STEADY: SteadyFigures = {
  events: 0,
  targetRate: NaN,
  achievedRate: NaN,
  p50: NaN,
  p99: NaN,
  samples: 0,
  putP50: NaN,
  putP99: NaN,
  puts: 0,
  units: 0,
  eventsPerUnit: NaN,
};

export async function produceAll(kafka: Kafka, topic: string, gen: GenParams | Iterable<GeneratedEvent>): Promise<{ seconds: number; eventsPerSec: number }> {
  const events = Symbol.iterator in gen ? gen : generateEvents(gen);
  const producer = kafka.producer();
  await producer.connect();
  try {
    const t0 = performance.now();
    const inFlight = new Set<Promise<void>>();
    let batch: Message[] = [];
    const flush = async (): Promise<void> => {
      const p = send(producer, topic, batch);
      batch = [];
      inFlight.add(p);
      void p.finally(() => inFlight.delete(p)).catch(() => undefined);
      if (inFlight.size >= SENDS_IN_FLIGHT) await Promise.race(inFlight);
    };
    let count = 0;
    for (const e of events) {
      count++;
      batch.push({ key: e.id, value: JSON.stringify(e) });
      if (batch.length >= SEND_BATCH) await flush();
    }
    if (batch.length > 0) await flush();
    await Promise.all(inFlight);
    const seconds = (performance.now() - t0) / 1000;
    return { seconds, eventsPerSec: count / seconds };
  } finally {
    await producer.disconnect();
  }
}

async function waitWritten(child: ServiceChild, target: number, timeoutMs: number, onTick: (n: number) => void): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const n = await child.written();
    onTick(n);
    if (n >= target) return;
    if (Date.now() > deadline) throw new Error(`timed out: ${n} of ${target} events written`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface HistogramSnapshot {
  readonly buckets: ReadonlyMap<number, number>; // le → cumulative count
  readonly count: number;
  readonly sum: number;
}

/** A histogram summed over the label sets `keep` accepts (all by default). */
export function histogramSnapshot(
  samples: readonly Sample[],
  name: string,
  keep: (labels: Readonly<Record<string, string>>) => boolean = () => true,
): HistogramSnapshot {
  const buckets = new Map<number, number>();
  let count = 0;
  let sum = 0;
  for (const v of samples) {
    if (!keep(v.labels)) continue;
    if (v.name === `${name}_bucket`) {
      const le = v.labels['le'] === '+Inf' ? Infinity : Number(v.labels['le']);
      buckets.set(le, (buckets.get(le) ?? 0) + v.value);
    } else if (v.name === `${name}_count`) count += v.value;
    else if (v.name === `${name}_sum`) sum += v.value;
  }
  return { buckets, count, sum };
}

/** What the 50 % phase's latency is made of: each REST put (all tables) and the rows per flush unit. */
function steadySnapshots(samples: readonly Sample[]): { e2e: HistogramSnapshot; put: HistogramSnapshot; unitRows: HistogramSnapshot } {
  return {
    e2e: histogramSnapshot(samples, METRIC_NAMES.endToEndLatency),
    put: histogramSnapshot(samples, METRIC_NAMES.hbaseRequestDuration, (l) => l['op'] === 'put' && l['status'] === '200'),
    unitRows: histogramSnapshot(samples, METRIC_NAMES.batchRows),
  };
}

/** Quantile of the difference of two cumulative histograms, linear interpolation inside the bucket. */
export function quantile(after: HistogramSnapshot, before: HistogramSnapshot, q: number): number {
  const les = [...after.buckets.keys()].sort((a, b) => a - b);
  const total = after.count - before.count;
  if (total <= 0) return NaN;
  const rank = q * total;
  let prevLe = 0;
  let prevCum = 0;
  for (const le of les) {
    const cum = (after.buckets.get(le) ?? 0) - (before.buckets.get(le) ?? 0);
    if (cum >= rank) {
      if (le === Infinity) return prevLe;
      const inBucket = cum - prevCum;
      return inBucket <= 0 ? le : prevLe + ((le - prevLe) * (rank - prevCum)) / inBucket;
    }
    prevLe = le;
    prevCum = cum;
  }
  return prevLe;
}

export interface ServiceRunResult {
  readonly mainSeconds: number;
  readonly mainEventsPerSec: number;
  /** CPU time of the service process per 1,000 events while draining (ms) */
  readonly cpuMsPer1000: number;
  /** the same for each process in `watchPids` (e.g. HBase, the REST gateway), by name */
  readonly watchedCpuMsPer1000: Readonly<Record<string, number>>;
  /** peak RSS of the service process while draining: 200 ms samples and the kernel's VmHWM */
  readonly peakRssBytes: number;
  readonly hwmBytes: number;
  readonly windowSkew: number;
  readonly runSkew: number;
  readonly regionCounts: readonly number[];
  readonly steady: SteadyFigures;
}

function regionWriteCounts(samples: readonly Sample[], table: string, regionCount: number): number[] {
  const counts = samples
    .filter((v) => v.name === 'tsingest_region_writes_total' && v.labels['table'] === table && v.labels['region'] !== 'unknown')
    .map((v) => v.value);
  while (counts.length < regionCount) counts.push(0); // regions with no writes count toward the mean
  return counts;
}

async function paced(kafka: Kafka, topic: string, o: { events: number; rate: number; ids: number; seed: number }): Promise<number> {
  const producer = kafka.producer();
  await producer.connect();
  try {
    const gen = generateEvents({ count: o.events, ids: o.ids, startTs: 0, stepMs: 0, seed: o.seed });
    const t0 = performance.now();
    let sent = 0;
    while (sent < o.events) {
      const due = Math.min(o.events, Math.floor(((performance.now() - t0) / 1000) * o.rate));
      const messages: Message[] = [];
      while (sent + messages.length < due) {
        const next = gen.next();
        if (next.done === true) break;
        messages.push({ key: next.value.id, value: JSON.stringify({ ...next.value, ts: Date.now() }) });
      }
      if (messages.length > 0) await send(producer, topic, messages);
      sent += messages.length;
      await new Promise((r) => setTimeout(r, 10));
    }
    return o.events / ((performance.now() - t0) / 1000);
  } finally {
    await producer.disconnect();
  }
}

/** Starts the service as its own process on a backlog of `events`, times the drain, then a paced phase (skipped when steadyEvents is 0). */
export async function runService(o: {
  env: NodeJS.ProcessEnv;
  sets: readonly string[];
  port: number;
  topic: string;
  dataTable: string;
  kafka: Kafka;
  events: number;
  steadyEvents: number;
  steadyFraction: number;
  ids: number;
  dataRegions: number;
  cpuProfDir?: string;
  /** other processes whose CPU time over the drain is reported per 1,000 events (name → pid) */
  watchPids?: Readonly<Record<string, number>>;
  say: (m: string) => void;
}): Promise<ServiceRunResult> {
  const watched = Object.entries(o.watchPids ?? {});
  const watchedCpu = (): number[] =>
    watched.map(([, pid]) => {
      try {
        return cpuMs(pid);
      } catch {
        return NaN;
      }
    });
  const t0 = performance.now();
  const child = await startServiceChild({
    env: o.env,
    sets: o.sets,
    port: o.port,
    say: o.say,
    ...(o.cpuProfDir === undefined ? {} : { cpuProfDir: o.cpuProfDir }),
  });
  try {
    const cpu0 = child.cpuMs();
    const watched0 = watchedCpu();
    let lastSay = Date.now();
    await waitWritten(child, o.events, 1_800_000, (n) => {
      if (Date.now() - lastSay > 10_000) {
        lastSay = Date.now();
        // Where the memory is: V8 heap vs memory outside it (Buffers), from the service's own metrics.
        void child.scrape().then(
          (m) => {
            const mib = (name: string): string => (sumOf(m, name) / 2 ** 20).toFixed(0);
            o.say(
              `  … ${n} written, service RSS peak ${(child.peak().sampled / 2 ** 20).toFixed(0)} MiB; now heap ${mib('tsingest_nodejs_heap_size_used_bytes')}/${mib('tsingest_nodejs_heap_size_total_bytes')} MiB used/total, external ${mib('tsingest_nodejs_external_memory_bytes')} MiB, queue ${sumOf(m, 'tsingest_queue_depth')}`,
            );
          },
          () => undefined,
        );
      }
    });
    const mainSeconds = (performance.now() - t0) / 1000;
    const cpuMsPer1000 = ((child.cpuMs() - cpu0) / o.events) * 1000;
    const watched1 = watchedCpu();
    const watchedCpuMsPer1000 = Object.fromEntries(watched.map(([name], i) => [name, (((watched1[i] ?? NaN) - (watched0[i] ?? NaN)) / o.events) * 1000]));
    const drainPeak = child.peak();
    const mainEventsPerSec = o.events / mainSeconds;
    const samples = await child.scrape();
    const windowSkew = samples.find((v) => v.name === 'tsingest_instance_region_write_skew' && v.labels['table'] === o.dataTable)?.value ?? NaN;
    const regionCounts = regionWriteCounts(samples, o.dataTable, o.dataRegions);
    o.say(
      `service drained ${o.events} events in ${mainSeconds.toFixed(1)} s (${Math.round(mainEventsPerSec)} events/s), ${cpuMsPer1000.toFixed(1)} CPU ms per 1000 events${watched.map(([name]) => ` (${name} ${(watchedCpuMsPer1000[name] ?? NaN).toFixed(1)})`).join('')}, RSS peak ${(drainPeak.sampled / 2 ** 20).toFixed(0)} MiB (VmHWM ${(drainPeak.hwm / 2 ** 20).toFixed(0)} MiB)`,
    );

    const targetRate = Math.max(100, Math.round(mainEventsPerSec * o.steadyFraction));
    const base = {
      mainSeconds,
      mainEventsPerSec,
      cpuMsPer1000,
      watchedCpuMsPer1000,
      peakRssBytes: drainPeak.sampled,
      hwmBytes: drainPeak.hwm,
      windowSkew,
      runSkew: computeSkew(regionCounts),
      regionCounts,
    };
    if (o.steadyEvents === 0) return { ...base, steady: { ...NO_STEADY, targetRate } };
    o.say(`steady phase: ${o.steadyEvents} events at ${targetRate} events/s, ts = produce time`);
    const before = steadySnapshots(await child.scrape());
    const achievedRate = await paced(o.kafka, o.topic, { events: o.steadyEvents, rate: targetRate, ids: o.ids, seed: 7 });
    await waitWritten(child, o.events + o.steadyEvents, 600_000, () => undefined);
    const after = steadySnapshots(await child.scrape());
    const units = after.unitRows.count - before.unitRows.count;
    return {
      ...base,
      steady: {
        events: o.steadyEvents,
        targetRate,
        achievedRate,
        p50: quantile(after.e2e, before.e2e, 0.5),
        p99: quantile(after.e2e, before.e2e, 0.99),
        samples: after.e2e.count - before.e2e.count,
        putP50: quantile(after.put, before.put, 0.5),
        putP99: quantile(after.put, before.put, 0.99),
        puts: after.put.count - before.put.count,
        units,
        eventsPerUnit: units > 0 ? (after.unitRows.sum - before.unitRows.sum) / units : NaN,
      },
    };
  } finally {
    await child.stop();
  }
}
