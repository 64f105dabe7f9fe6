// Benchmark phases that go through Kafka: bulk produce, the real service draining the backlog, and a
// paced steady-state phase for end-to-end latency.
import type { Kafka, Message, Producer } from 'kafkajs';
import { CompressionTypes } from 'kafkajs';
import type { Logger } from 'pino';
import type { Config } from '../../src/runtime/config.ts';
import { startService, type Service } from '../../src/service/service.ts';
import { generateEvents } from '../../src/demo/generate.ts';
import { computeSkew } from '../../src/metrics/write-spread.ts';
import type { GenParams } from './bench-rows.ts';

const SEND_BATCH = 10_000;
const SENDS_IN_FLIGHT = 4;

async function send(producer: Producer, topic: string, messages: Message[]): Promise<void> {
  await producer.send({ topic, acks: -1, compression: CompressionTypes.None, messages });
}

/** Produces the generated events; returns seconds taken (acks -1, no compression, large batches). */
export async function produceAll(kafka: Kafka, topic: string, gen: GenParams): Promise<{ seconds: number; eventsPerSec: number }> {
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
    for (const e of generateEvents(gen)) {
      batch.push({ key: e.id, value: JSON.stringify(e) });
      if (batch.length >= SEND_BATCH) await flush();
    }
    if (batch.length > 0) await flush();
    await Promise.all(inFlight);
    const seconds = (performance.now() - t0) / 1000;
    return { seconds, eventsPerSec: gen.count / seconds };
  } finally {
    await producer.disconnect();
  }
}

function written(service: Service): Promise<number> {
  return service.metrics.events.get().then((m) => m.values.filter((v) => v.labels['outcome'] === 'written').reduce((a, v) => a + v.value, 0));
}

async function waitWritten(service: Service, target: number, timeoutMs: number, onTick: () => void): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    onTick();
    const n = await written(service);
    if (n >= target) return;
    if (Date.now() > deadline) throw new Error(`timed out: ${n} of ${target} events written`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface HistogramSnapshot {
  readonly buckets: ReadonlyMap<number, number>; // le → cumulative count
  readonly count: number;
}

async function latencySnapshot(service: Service): Promise<HistogramSnapshot> {
  const m = await service.metrics.endToEndLatency.get();
  const buckets = new Map<number, number>();
  let count = 0;
  for (const v of m.values) {
    if (v.metricName?.endsWith('_bucket') === true) {
      const le = v.labels['le'];
      buckets.set(le === '+Inf' ? Infinity : Number(le), v.value);
    } else if (v.metricName?.endsWith('_count') === true) count = v.value;
  }
  return { buckets, count };
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
  readonly peakRssBytes: number;
  readonly rssBeforeServiceBytes: number;
  readonly windowSkew: number;
  readonly runSkew: number;
  readonly regionCounts: readonly number[];
  readonly steady: { readonly events: number; readonly targetRate: number; readonly achievedRate: number; readonly p50: number; readonly p99: number; readonly samples: number };
}

async function regionWriteCounts(service: Service, table: string, regionCount: number): Promise<number[]> {
  const m = await service.metrics.regionWrites.get();
  const counts = m.values.filter((v) => v.labels['table'] === table && v.labels['region'] !== 'unknown').map((v) => v.value);
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

export async function runService(o: {
  cfg: Config;
  log: Logger;
  kafka: Kafka;
  events: number;
  steadyEvents: number;
  steadyFraction: number;
  ids: number;
  dataRegions: number;
  say: (m: string) => void;
}): Promise<ServiceRunResult> {
  const rssBefore = process.memoryUsage().rss;
  let peak = rssBefore;
  const sample = (): void => { peak = Math.max(peak, process.memoryUsage().rss); };
  const sampler = setInterval(sample, 250);
  const t0 = performance.now();
  const service = await startService(o.cfg, o.log);
  try {
    let lastSay = Date.now();
    await waitWritten(service, o.events, 1_800_000, () => {
      if (Date.now() - lastSay > 10_000) {
        lastSay = Date.now();
        void written(service).then((n) => { o.say(`  … ${n} written`); });
      }
    });
    const mainSeconds = (performance.now() - t0) / 1000;
    const mainEventsPerSec = o.events / mainSeconds;
    const table = o.cfg.tables.data.name;
    const gauge = await service.metrics.regionWriteSkew.get();
    const windowSkew = gauge.values.find((v) => v.labels['table'] === table)?.value ?? NaN;
    const regionCounts = await regionWriteCounts(service, table, o.dataRegions);
    o.say(`service drained ${o.events} events in ${mainSeconds.toFixed(1)} s (${Math.round(mainEventsPerSec)} events/s)`);

    const targetRate = Math.max(100, Math.round(mainEventsPerSec * o.steadyFraction));
    o.say(`steady phase: ${o.steadyEvents} events at ${targetRate} events/s, ts = produce time`);
    const before = await latencySnapshot(service);
    const achievedRate = await paced(o.kafka, o.cfg.kafka.topic, { events: o.steadyEvents, rate: targetRate, ids: o.ids, seed: 7 });
    await waitWritten(service, o.events + o.steadyEvents, 600_000, () => undefined);
    const after = await latencySnapshot(service);
    return {
      mainSeconds,
      mainEventsPerSec,
      peakRssBytes: peak,
      rssBeforeServiceBytes: rssBefore,
      windowSkew,
      runSkew: computeSkew(regionCounts),
      regionCounts,
      steady: { events: o.steadyEvents, targetRate, achievedRate, p50: quantile(after, before, 0.5), p99: quantile(after, before, 0.99), samples: after.count - before.count },
    };
  } finally {
    clearInterval(sampler);
    sample();
    await service.stop('benchmark finished');
  }
}
