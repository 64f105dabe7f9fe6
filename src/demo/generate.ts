// Synthetic events for the demo and the benchmark: ids drawn from a Zipf distribution (a few ids are
// hot), timestamps increasing, a couple of metrics and a site tag. Deterministic for a given seed.

/** A small deterministic PRNG (mulberry32). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Samples ranks 0..n-1 with P(k) ∝ 1/(k+1)^s by inverting the cumulative distribution. */
export function zipfSampler(n: number, s: number, random: () => number): () => number {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let k = 0; k < n; k++) {
    sum += 1 / (k + 1) ** s;
    cdf[k] = sum;
  }
  return () => {
    const u = random() * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((cdf[mid] ?? 0) < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

export interface GeneratedEvent {
  readonly id: string;
  readonly ts: number;
  readonly metric: string;
  readonly value: number;
  readonly tags: Readonly<Record<string, string>>;
}

/** `racks`: also tag each event `rack` = rack-(rank mod racks) (a second indexable tag). */
export function* generateEvents(opts: {
  count: number;
  ids: number;
  startTs: number;
  stepMs: number;
  seed: number;
  zipfS?: number;
  racks?: number;
}): Generator<GeneratedEvent> {
  const random = prng(opts.seed);
  const rank = zipfSampler(opts.ids, opts.zipfS ?? 1.1, random);
  const metrics = ['temp', 'hum', 'load'];
  for (let i = 0; i < opts.count; i++) {
    const r = rank();
    yield {
      id: `sensor-${String(r).padStart(5, '0')}`,
      // one event per (id, ts, metric): the index i makes the ts unique
      ts: opts.startTs + i * opts.stepMs,
      metric: metrics[i % metrics.length] ?? 'temp',
      value: Math.round(random() * 10000) / 100,
      tags: opts.racks === undefined ? { site: `site-${r % 7}` } : { site: `site-${r % 7}`, rack: `rack-${r % opts.racks}` },
    };
  }
}
