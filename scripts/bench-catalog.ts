// The series catalog's in-memory index at scale: builds 100,000 synthetic series (50 metrics × 2,000
// ids, tags host/dc/rack/env) and times /api/suggest-style prefix lookups and /api/search/lookup-style
// filter lookups, p50/p99 over many calls. Prints the numbers; no assertion (the target is p99 < 50 ms).
//   node_modules/.bin/node scripts/bench-catalog.ts [--series N] [--calls N]
import { parseArgs } from 'node:util';
import { SeriesIndex } from '../src/catalog/index.ts';
import { buildFilter, type TagFilter } from '../src/series-language/index.ts';

const { values } = parseArgs({ options: { series: { type: 'string', default: '100000' }, calls: { type: 'string', default: '2000' } } });
const SERIES = Number(values.series);
const CALLS = Number(values.calls);
const METRICS = 50;
const IDS = Math.max(1, Math.floor(SERIES / METRICS));

let seed = 42;
const rnd = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;

const metricNames = Array.from({ length: METRICS }, (_, i) => `sys.${['cpu', 'mem', 'disk', 'net', 'app'][i % 5] as string}.m${String(i).padStart(2, '0')}`);
const ix = new SeriesIndex({ idTagKey: 'id' });
const t0 = performance.now();
for (const metric of metricNames) {
  for (let i = 0; i < IDS; i++) {
    ix.add({
      metric,
      id: `host-${String(i).padStart(5, '0')}`,
      tags: { host: `web${i % 500}`, dc: `dc${i % 8}`, rack: `r${i % 40}`, env: i % 10 === 0 ? 'staging' : 'prod' },
    });
  }
}
const built = performance.now() - t0;
const t1 = performance.now();
ix.metrics(''); // the sorted views are built on the first read
const firstRead = performance.now() - t1;

function time(name: string, fn: (i: number) => unknown): void {
  const ms: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const s = performance.now();
    fn(i);
    ms.push(performance.now() - s);
  }
  ms.sort((a, b) => a - b);
  const q = (p: number): string => (ms[Math.min(ms.length - 1, Math.floor(p * ms.length))] as number).toFixed(3);
  console.log(`${name.padEnd(58)} p50 ${q(0.5).padStart(8)} ms   p99 ${q(0.99).padStart(8)} ms   max ${q(1).padStart(8)} ms`);
}

const f = (type: string, tagk: string, filter: string): TagFilter => buildFilter(type, tagk, filter);
console.log(
  `series ${ix.size}, metrics ${METRICS}, ids ${IDS}; add ${built.toFixed(0)} ms, first read (sorted views) ${firstRead.toFixed(0)} ms; ${CALLS} calls each`,
);
const prefixes = ['', 's', 'sys.', 'sys.cpu', 'sys.mem.m0', 'x'];
time('suggest metrics (prefix, max 25)', (i) => ix.metrics(prefixes[i % prefixes.length], 25));
time('suggest tagk (prefix, max 25)', (i) => ix.tagKeys(['', 'h', 'd', 'r'][i % 4], 25));
time('suggest tagv (prefix, max 25)', (i) => ix.tagValues(['', 'web1', 'host-0', 'dc', 'r3'][i % 5], 25));
time('lookup metric, no filter (limit 25; total 2000)', () => ix.lookup(pick(metricNames), [], 25));
time('lookup metric + literal_or host=webN (all matches)', () => ix.lookup(pick(metricNames), [f('literal_or', 'host', `web${Math.floor(rnd() * 500)}`)]));
time('lookup metric + literal_or id=a|b|c', () => ix.lookup(pick(metricNames), [f('literal_or', 'id', 'host-00001|host-00002|host-00003')]));
time('lookup metric + wildcard host=web1* + dc=*', () => ix.lookup(pick(metricNames), [f('wildcard', 'host', 'web1*'), f('wildcard', 'dc', '*')]));
time('lookup metric + regexp rack=^r1[0-9]$ + not env=staging', () =>
  ix.lookup(pick(metricNames), [f('regexp', 'rack', '^r1[0-9]$'), f('not_literal_or', 'env', 'staging')]),
);
time('lookup all metrics + literal_or dc=dcN (limit 25; 12.5k)', () => ix.lookup(undefined, [f('literal_or', 'dc', `dc${Math.floor(rnd() * 8)}`)], 25));
time('lookup all metrics + wildcard host=*9 (limit 25; scan 100k)', () => ix.lookup(undefined, [f('wildcard', 'host', '*9')], 25));
