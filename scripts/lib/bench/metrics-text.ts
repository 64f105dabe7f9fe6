// Reading a service instance's /metrics the way an operator would: the consumer lag series per
// partition and the events written. Shared by the scale-out drill and the scale-out integration test.
import { parseMetrics, sumOf } from './child.ts';

/** GET /metrics of the instance on `port`; null when it does not answer (stopped, killed, starting). */
export async function scrapeMetrics(port: number): Promise<string | null> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(3000) });
    return res.ok ? await res.text() : null;
  } catch {
    return null;
  }
}

/** tsingest_consumer_lag of `topic` per partition as one instance exports it. */
export function lagByPartition(text: string, topic: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const s of parseMetrics(text)) if (s.name === 'tsingest_consumer_lag' && s.labels['topic'] === topic) out.set(Number(s.labels['partition']), s.value);
  return new Map([...out].sort((x, y) => x[0] - y[0]));
}

/** Sum of tsingest_events_total{outcome="written"}. */
export function eventsWritten(text: string): number {
  return sumOf(parseMetrics(text), 'tsingest_events_total', { outcome: 'written' });
}
