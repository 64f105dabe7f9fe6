// CPU profile (`node --cpu-prof`) of the service → self time per category, per 1,000 events. Each
// sample is charged to the function on top of the stack, classified by its script URL and name.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string };
}

export interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export const CATEGORIES = [
  'Kafka fetch + decode (kafkajs)',
  'JSON parse + event validation',
  'row building (keys, cells, index rows)',
  'body encoding (protobuf / JSON)',
  'HTTP (undici)',
  'write path bookkeeping (dual writer, queue, offsets)',
  'metrics (prom-client, region map)',
  'Node internals (net, streams, timers, buffers)',
  'garbage collection',
  'other',
] as const;
export type Category = (typeof CATEGORIES)[number];

export function categorize(fn: string, url: string): Category | 'idle' {
  if (fn === '(idle)' || fn === '(program)') return 'idle';
  if (fn === '(garbage collector)') return 'garbage collection';
  if (url.includes('/node_modules/kafkajs/')) return 'Kafka fetch + decode (kafkajs)';
  if (url.includes('/node_modules/undici/')) return 'HTTP (undici)';
  if (url.includes('/node_modules/prom-client/') || url.includes('/src/metrics/')) return 'metrics (prom-client, region map)';
  if (url.includes('/src/events/') || (url === '' && (fn === 'parse' || fn === 'JSONParse'))) return 'JSON parse + event validation';
  if (url.includes('/src/hbase/protobuf') || url.includes('/src/hbase/codec') || (url === '' && fn === 'stringify')) return 'body encoding (protobuf / JSON)';
  if (url.includes('/src/keys/') || url.includes('/src/ingest/batch-plan')) return 'row building (keys, cells, index rows)';
  if (url.includes('/src/ingest/') || url.includes('/node_modules/p-queue/') || url.includes('/src/rollup/')) return 'write path bookkeeping (dual writer, queue, offsets)';
  if (url.startsWith('node:') || url === '') return 'Node internals (net, streams, timers, buffers)';
  return 'other';
}

/** Self time (ms) per category over the whole profile. */
export function breakdown(p: CpuProfile): Map<Category, number> {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const out = new Map<Category, number>(CATEGORIES.map((c) => [c, 0]));
  for (let i = 0; i < p.samples.length; i++) {
    const node = byId.get(p.samples[i] ?? -1);
    if (node === undefined) continue;
    const c = categorize(node.callFrame.functionName, node.callFrame.url);
    if (c === 'idle') continue;
    out.set(c, (out.get(c) ?? 0) + (p.timeDeltas[i] ?? 0) / 1000);
  }
  return out;
}

/** The newest .cpuprofile in `dir`. */
export function readProfile(dir: string): CpuProfile {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).sort();
  const last = files.at(-1);
  if (last === undefined) throw new Error(`no .cpuprofile in ${dir}`);
  return JSON.parse(readFileSync(join(dir, last), 'utf8')) as CpuProfile;
}
