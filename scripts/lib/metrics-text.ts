// Reading a service instance's /metrics (Prometheus text format) the way an operator would: the
// samples of one metric with their labels, and the consumer lag series per partition. Shared by the
// scale-out drill and the scale-out integration test.

export interface Sample {
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** Every sample of `name` in a Prometheus text exposition (no escaped quotes in label values). */
export function samplesOf(text: string, name: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const close = line.lastIndexOf('}');
    const labels: Record<string, string> = {};
    if (line[name.length] === '{') for (const m of line.slice(name.length + 1, close).matchAll(/(\w+)="([^"]*)"/g)) labels[m[1] ?? ''] = m[2] ?? '';
    out.push({ labels, value: Number(line.slice(line.lastIndexOf(' ') + 1)) });
  }
  return out;
}

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
  for (const s of samplesOf(text, 'tsingest_consumer_lag')) if (s.labels['topic'] === topic) out.set(Number(s.labels['partition']), s.value);
  return out;
}

/** Sum of tsingest_events_total{outcome="written"}. */
export function eventsWritten(text: string): number {
  return samplesOf(text, 'tsingest_events_total').filter((s) => s.labels['outcome'] === 'written').reduce((a, s) => a + s.value, 0);
}
