// The steady feed of the live phase: `rate` events a second with ts = now, to both sides at once:
// our events topic (kafkajs producer, acks all) and the TSD's /api/put (sync: acknowledged once
// HBase has every point). The ids are the history's (Zipf over the same ranks, site = rank mod 7),
// one metric per event in turn, as the generator makes them; an id's ts never repeats (ts = max(now,
// its last + 1)), so both sides store every event as one point.
import type { Kafka, Message, Producer } from 'kafkajs';
import { CompressionTypes } from 'kafkajs';
import { prng, zipfSampler, type GeneratedEvent } from '../../../src/demo/index.ts';
import { InFlight, putBatch } from '../opentsdb/io.ts';
import { toOpenTsdbPoint } from '../opentsdb/plan.ts';

const TICK_MS = 100;
const METRICS = ['temp', 'hum', 'load'] as const;

export interface LiveFeed {
  /** events sent so far (to both sides) */
  readonly sent: number;
  /** resolves once every event sent so far is acknowledged by Kafka and by the TSD */
  settled(): Promise<void>;
  /** stops sending; resolves when what was sent is acknowledged */
  stop(): Promise<void>;
  /** sends nothing until resume() (the ticks go on: the rate resumes, nothing is made up) */
  pause(): void;
  resume(): void;
  /** the first failure of either side, if any (the feed stops at it) */
  readonly failure: unknown;
  /** ticks that started more than one tick late (the bench process could not keep the rate) */
  readonly lateTicks: number;
}

export interface FeedOptions {
  readonly kafka: Kafka;
  readonly topic: string;
  /** the TSD the same events go to; undefined: Kafka only (our ingest alone, `npm run bench:ingest`) */
  readonly tsdUrl: string | undefined;
  readonly rate: number;
  readonly ids: number;
  readonly seed: number;
  readonly zipfS?: number;
}

export async function startFeed(o: FeedOptions): Promise<LiveFeed> {
  const producer: Producer = o.kafka.producer();
  await producer.connect();
  const random = prng(o.seed);
  const rank = zipfSampler(o.ids, o.zipfS ?? 1.1, random);
  const lastTs = new Map<number, number>();
  const writes = new InFlight();
  let sent = 0;
  let carry = 0;
  let n = 0;
  let lateTicks = 0;
  let stopped = false;
  let paused = false;
  const started = performance.now();
  let tickNo = 0;
  const tick = (): void => {
    if (stopped || writes.failure !== undefined) return;
    const now = Date.now();
    carry += paused ? 0 : (o.rate * TICK_MS) / 1000;
    const count = Math.floor(carry);
    carry -= count;
    const events: GeneratedEvent[] = [];
    for (let i = 0; i < count; i++) {
      const r = rank();
      const ts = Math.max(now, (lastTs.get(r) ?? 0) + 1);
      lastTs.set(r, ts);
      events.push({
        id: `sensor-${String(r).padStart(5, '0')}`,
        ts,
        metric: METRICS[n++ % METRICS.length] ?? 'temp',
        value: Math.round(random() * 10000) / 100,
        tags: { site: `site-${r % 7}` },
      });
    }
    if (events.length > 0) {
      const messages: Message[] = events.map((e) => ({ key: e.id, value: JSON.stringify(e) }));
      writes.add(producer.send({ topic: o.topic, acks: -1, compression: CompressionTypes.None, messages }));
      if (o.tsdUrl !== undefined)
        writes.add(
          putBatch(
            o.tsdUrl,
            events.map((e) => toOpenTsdbPoint(e)),
          ),
        );
      sent += events.length;
    }
    tickNo++;
    const due = started + tickNo * TICK_MS;
    const wait = due - performance.now();
    if (wait < -TICK_MS) lateTicks++;
    setTimeout(tick, Math.max(0, wait));
  };
  tick();
  const settled = (): Promise<void> => writes.settled('the live feed');
  return {
    get sent() {
      return sent;
    },
    get failure() {
      return writes.failure;
    },
    get lateTicks() {
      return lateTicks;
    },
    settled,
    pause: () => {
      paused = true;
    },
    resume: () => {
      paused = false;
    },
    stop: async () => {
      stopped = true;
      try {
        await settled();
      } finally {
        await producer.disconnect();
      }
    },
  };
}
