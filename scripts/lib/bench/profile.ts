// CPU profile (`node --cpu-prof`) of the service → time per category, per 1,000 events. Each sample is
// charged to the function on top of the stack, classified by its script URL and name ("self").
// Node/V8 built-ins (node:* scripts and native frames such as Buffer or TextDecoder methods) are
// also reported "charged to the caller": walked up to the nearest frame in a project or library
// category, so Buffer work under the protobuf encoder counts as encoding and socket writes under
// undici as HTTP; only built-in time with no such ancestor (timers, ticks) stays "Node internals".
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string };
  readonly children?: readonly number[];
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
  'HTTP (undici, REST transport)',
  'write path bookkeeping (event writer, queue, offsets)',
  'metrics (prom-client, region map)',
  'Node internals (net, streams, timers, buffers)',
  'garbage collection',
  'other',
] as const;
export type Category = (typeof CATEGORIES)[number];
const INTERNALS: Category = 'Node internals (net, streams, timers, buffers)';

export function categorize(fn: string, url: string): Category | 'idle' {
  if (fn === '(idle)' || fn === '(program)') return 'idle';
  if (fn === '(garbage collector)') return 'garbage collection';
  if (url.includes('/node_modules/kafkajs/')) return 'Kafka fetch + decode (kafkajs)';
  if (url.includes('/node_modules/undici/') || /\/src\/hbase\/(undici-transport|transport|rest-caller)\./.test(url)) return 'HTTP (undici, REST transport)';
  if (url.includes('/node_modules/prom-client/') || url.includes('/src/metrics/')) return 'metrics (prom-client, region map)';
  if (url.includes('/src/events/cells') || url.includes('/src/keys/') || url.includes('/src/ingest/batch-plan'))
    return 'row building (keys, cells, index rows)';
  if (url.includes('/src/events/') || (url === '' && (fn === 'parse' || fn === 'JSONParse'))) return 'JSON parse + event validation';
  if (url.includes('/src/hbase/protobuf') || url.includes('/src/hbase/codec') || (url === '' && fn === 'stringify')) return 'body encoding (protobuf / JSON)';
  if (url.includes('/src/ingest/') || url.includes('/node_modules/p-queue/') || url.includes('/src/rollup/'))
    return 'write path bookkeeping (event writer, queue, offsets)';
  if (url.startsWith('node:') || url === '') return INTERNALS;
  return 'other';
}

export interface Breakdown {
  /** ms by the top frame's own category */
  readonly self: Map<Category, number>;
  /** ms with built-in frames charged to their nearest categorised caller */
  readonly charged: Map<Category, number>;
}

/** Time (ms) per category over the whole profile; idle samples are left out. */
export function breakdown(p: CpuProfile): Breakdown {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const memo = new Map<number, Category | 'idle'>();
  const charge = (id: number): Category | 'idle' => {
    const known = memo.get(id);
    if (known !== undefined) return known;
    const node = byId.get(id);
    let c: Category | 'idle' = node === undefined ? INTERNALS : categorize(node.callFrame.functionName, node.callFrame.url);
    if (c === INTERNALS) {
      const up = parent.get(id);
      if (up !== undefined) {
        const pc = charge(up);
        if (pc !== 'idle') c = pc;
      }
    }
    memo.set(id, c);
    return c;
  };
  const self = new Map<Category, number>(CATEGORIES.map((c) => [c, 0]));
  const charged = new Map<Category, number>(CATEGORIES.map((c) => [c, 0]));
  for (let i = 0; i < p.samples.length; i++) {
    const id = p.samples[i] ?? -1;
    const node = byId.get(id);
    if (node === undefined) continue;
    const c = categorize(node.callFrame.functionName, node.callFrame.url);
    if (c === 'idle') continue;
    const ms = (p.timeDeltas[i] ?? 0) / 1000;
    self.set(c, (self.get(c) ?? 0) + ms);
    const cc = charge(id);
    const to = cc === 'idle' ? INTERNALS : cc;
    charged.set(to, (charged.get(to) ?? 0) + ms);
  }
  return { self, charged };
}

/** The newest .cpuprofile in `dir`. */
export function readProfile(dir: string): CpuProfile {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .sort();
  const last = files.at(-1);
  if (last === undefined) throw new Error(`no .cpuprofile in ${dir}`);
  return JSON.parse(readFileSync(join(dir, last), 'utf8')) as CpuProfile;
}

/** The `n` frames with the most self time (ms), idle excluded, with their category. */
export function topFrames(p: CpuProfile, n: number): { fn: string; url: string; category: string; ms: number }[] {
  const byId = new Map(p.nodes.map((x) => [x.id, x]));
  const self = new Map<string, { fn: string; url: string; category: string; ms: number }>();
  for (let i = 0; i < p.samples.length; i++) {
    const node = byId.get(p.samples[i] ?? -1);
    if (node === undefined) continue;
    const { functionName: fn, url } = node.callFrame;
    const category = categorize(fn, url);
    if (category === 'idle') continue;
    const key = `${fn}@${url}`;
    const e = self.get(key) ?? { fn, url, category, ms: 0 };
    e.ms += (p.timeDeltas[i] ?? 0) / 1000;
    self.set(key, e);
  }
  return [...self.values()].sort((a, b) => b.ms - a.ms).slice(0, n);
}

/** A service's CPU profile per 1,000 of the events it wrote: by category, and its top frames by self time (the ten first said). */
export function profilePer1000(
  dir: string,
  events: number,
  say: (m: string) => void,
): { charged: Record<string, number>; self: Record<string, number>; profileTop: { fn: string; url: string; category: string; ms: number }[] } {
  const p = readProfile(dir);
  const b = breakdown(p);
  const per1000 = (m: Map<string, number>): Record<string, number> => Object.fromEntries([...m].map(([k, v]) => [k, (v / events) * 1000]));
  const top = topFrames(p, 25).map((f) => ({ ...f, ms: (f.ms / events) * 1000 }));
  say(
    `top frames by self time (ms per 1,000 events): ${top
      .slice(0, 10)
      .map((f) => `${f.fn || '(anonymous)'}@${f.url.replace(/^.*\/(node_modules|src)\//, '$1/')} ${f.ms.toFixed(2)}`)
      .join('; ')}`,
  );
  return { charged: per1000(b.charged), self: per1000(b.self), profileTop: top };
}
