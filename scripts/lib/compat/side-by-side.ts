// `--ours URL`: every suite query to the TSD and to our service, the answers compared
// (compare.ts), the differences split into documented and failures (divergences.ts), and each
// side's latency per shape over `reps` repetitions (the first answer of each side is the one compared).
import { percentile } from '../bench/load.ts';
import { compareAnswers, type Difference } from './compare.ts';
import { classify, type Divergence } from './divergences.ts';
import { send, sendToTsd } from './http.ts';
import type { CompatQuery } from './suite.ts';

export interface SideBySideInput {
  readonly tsdUrl: string;
  readonly oursUrl: string;
  readonly queries: readonly CompatQuery[];
  readonly divergences: readonly Divergence[];
  readonly reps: number;
  readonly say: (m: string) => void;
}

export interface ShapeLatency {
  readonly shape: string;
  readonly queries: number;
  readonly tsd: { readonly p50: number; readonly p99: number };
  readonly ours: { readonly p50: number; readonly p99: number };
}

export function latencyTable(rows: readonly ShapeLatency[]): string {
  const head = '| shape | queries | OpenTSDB p50 / p99 ms | ours p50 / p99 ms |\n|---|---:|---:|---:|';
  return [
    head,
    ...rows.map(
      (r) => `| ${r.shape} | ${r.queries} | ${r.tsd.p50.toFixed(1)} / ${r.tsd.p99.toFixed(1)} | ${r.ours.p50.toFixed(1)} / ${r.ours.p99.toFixed(1)} |`,
    ),
  ].join('\n');
}

const stats = (xs: number[]): { p50: number; p99: number } => {
  const s = [...xs].sort((a, b) => a - b);
  return { p50: percentile(s, 50), p99: percentile(s, 99) };
};

/** `ok`: every difference is documented; `rows`: each side's latency per shape. */
export async function compareWithOurs(o: SideBySideInput): Promise<{
  ok: boolean;
  rows: ShapeLatency[];
  perQuery: { name: string; shape: string; tsd: { p50: number; p99: number }; ours: { p50: number; p99: number } }[];
  documented: number;
  failures: number;
}> {
  if (o.queries.length === 0) throw new Error('no queries to compare: a comparison of nothing is no result');
  const diffs: Difference[] = [];
  const perQuery: { name: string; shape: string; tsd: { p50: number; p99: number }; ours: { p50: number; p99: number } }[] = [];
  const times = new Map<string, { n: number; tsd: number[]; ours: number[] }>();
  for (const q of o.queries) {
    const t = times.get(q.shape) ?? { n: 0, tsd: [], ours: [] };
    times.set(q.shape, t);
    t.n++;
    const ref = await sendToTsd(o.tsdUrl, q, o.say);
    const ours = await send(o.oursUrl, q).catch((err: unknown) => {
      throw new Error(`${q.name}: our service at ${o.oursUrl} did not answer: ${String(err)}`);
    });
    const mine = { tsd: [ref.ms], ours: [ours.ms] };
    for (let i = 1; i < o.reps; i++) {
      mine.tsd.push((await sendToTsd(o.tsdUrl, q, o.say)).ms);
      mine.ours.push((await send(o.oursUrl, q)).ms);
    }
    t.tsd.push(...mine.tsd);
    t.ours.push(...mine.ours);
    perQuery.push({ name: q.name, shape: q.shape, tsd: stats(mine.tsd), ours: stats(mine.ours) });
    let d: Difference[];
    try {
      d = compareAnswers(q.name, ref, ours);
    } catch (err) {
      throw new Error(`${q.name}: the TSD's answer is not comparable: ${String(err)}`);
    }
    diffs.push(...d);
    o.say(`${q.name}: ${d.length === 0 ? 'same' : `${d.length} difference(s)`}`);
  }
  const { documented, failures } = classify(diffs, o.divergences);
  for (const { diff, by } of documented)
    o.say(`documented: ${diff.query} ${diff.kind}${diff.series === undefined ? '' : ` ${diff.series}`}: ${diff.detail} (${by.why})`);
  for (const d of failures) o.say(`DIFFERENT: ${d.query} ${d.kind}${d.series === undefined ? '' : ` ${d.series}`}: ${d.detail}`);
  const rows = [...times.entries()].map(([shape, t]) => ({ shape, queries: t.n, tsd: stats(t.tsd), ours: stats(t.ours) }));
  o.say(`latency over ${o.reps} repetition(s) per query:\n${latencyTable(rows)}`);
  const sameQueries = o.queries.filter((q) => !diffs.some((d) => d.query === q.name)).length;
  o.say(`${sameQueries} of ${o.queries.length} queries answer the same; ${documented.length} documented difference(s), ${failures.length} undocumented`);
  return { ok: failures.length === 0, rows, perQuery, documented: documented.length, failures: failures.length };
}
