// The demo's live phase: after the history (two days old, so no promotion can spread it: an epoch
// starts ahead of now), events with ts = now from the same Zipf ids, paced, so the epochs the
// promoter added apply; and the per-region writes of a table between two scrapes of /metrics.
import type { Kafka } from 'kafkajs';
import { generateEvents } from '../../../src/demo/index.ts';
import { computeSkew } from '../../../src/load/index.ts';

/**
 * Produces events at about `rate` per second with ts = the time of sending (the history's Zipf ids)
 * until `done(sent)` says so; returns how many.
 */
export async function produceLive(
  kafka: Kafka,
  topic: string,
  feed: { readonly rate: number; readonly seed?: number },
  done: (sent: number) => boolean | Promise<boolean>,
): Promise<number> {
  const { rate, seed = 4242 } = feed;
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  try {
    const gen = generateEvents({ count: Number.MAX_SAFE_INTEGER, ids: 1000, startTs: 0, stepMs: 0, seed });
    const t0 = performance.now();
    let sent = 0;
    let last = 0;
    while (!(await done(sent))) {
      const due = Math.floor(((performance.now() - t0) / 1000) * rate) + 1;
      const messages: { key: string; value: string }[] = [];
      while (sent + messages.length < due) {
        const next = gen.next();
        if (next.done === true) break;
        last = Math.max(last + 1, Date.now()); // one event per ms: (id, ts, metric) stays unique
        messages.push({ key: next.value.id, value: JSON.stringify({ ...next.value, ts: last }) });
      }
      if (messages.length > 0) await producer.send({ topic, acks: -1, messages });
      sent += messages.length;
      await new Promise((r) => setTimeout(r, 50));
    }
    return sent;
  } finally {
    await producer.disconnect();
  }
}

/** Rows written per region of `table` so far, from the service's /metrics text. */
export function regionWrites(metricsText: string, table: string): Map<string, number> {
  const out = new Map<string, number>();
  const re = new RegExp(`^tsingest_region_writes_total\\{table="${table.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}",region="([^"]+)"[^}]*\\} (\\S+)$`, 'gm');
  for (const m of metricsText.matchAll(re)) if (m[1] !== 'unknown') out.set(m[1] ?? '', (out.get(m[1] ?? '') ?? 0) + Number(m[2]));
  return out;
}

/** max / mean rows per region between two readings (every region of the table counts, also those without writes). */
export function skewBetween(before: ReadonlyMap<string, number>, after: ReadonlyMap<string, number>, regions: number): number {
  const counts = [...after].map(([r, n]) => n - (before.get(r) ?? 0));
  while (counts.length < regions) counts.push(0);
  return computeSkew(counts);
}
