// Loaded into the service under bench with `--import` (bench:ingest --gc-log): appends each garbage
// collection of the main thread to the file TSI_BENCH_GC_LOG names, a line each: the epoch ms it
// began, its duration (ms) and its kind. gcSummary reads it back for a window of time.
import { appendFileSync, readFileSync } from 'node:fs';
import { PerformanceObserver, performance } from 'node:perf_hooks';

const KINDS: Readonly<Record<number, string>> = { 1: 'minor', 2: 'major', 4: 'incremental', 8: 'weakcb' };

export interface GcKindFigures {
  readonly n: number;
  readonly totalMs: number;
  readonly maxMs: number;
}

/** The collections logged in [fromMs, toMs), by kind. */
export function gcSummary(text: string, fromMs: number, toMs: number): Record<string, GcKindFigures> {
  const out: Record<string, GcKindFigures> = {};
  for (const line of text.split('\n')) {
    const [at, ms, kind] = line.split(' ');
    const t = Number(at);
    const d = Number(ms);
    if (kind === undefined || !Number.isFinite(t) || !Number.isFinite(d) || t < fromMs || t >= toMs) continue;
    const k = out[kind] ?? { n: 0, totalMs: 0, maxMs: 0 };
    out[kind] = { n: k.n + 1, totalMs: k.totalMs + d, maxMs: Math.max(k.maxMs, d) };
  }
  return out;
}

export function readGcSummary(file: string, fromMs: number, toMs: number): Record<string, GcKindFigures> {
  return gcSummary(readFileSync(file, 'utf8'), fromMs, toMs);
}

const file = process.env['TSI_BENCH_GC_LOG'];
if (file !== undefined && file !== '') {
  new PerformanceObserver((list) => {
    let lines = '';
    for (const e of list.getEntries()) {
      const kind = ((e as { detail?: unknown }).detail as { kind?: number } | undefined)?.kind ?? 0;
      lines += `${(performance.timeOrigin + e.startTime).toFixed(0)} ${e.duration.toFixed(1)} ${KINDS[kind] ?? String(kind)}\n`;
    }
    appendFileSync(file, lines);
  }).observe({ entryTypes: ['gc'] });
}
