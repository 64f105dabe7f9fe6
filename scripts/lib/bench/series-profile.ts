// Where a service's CPU went while it answered queries (`node --cpu-prof`): self time by source file
// (project files by path, libraries by package, Node built-ins and V8 natives together), and the
// frames with the most self time. Idle samples are left out.
import { readProfile, type CpuProfile } from './profile.ts';

export interface ProfileSummary {
  readonly busyMs: number;
  readonly byFile: readonly { readonly file: string; readonly ms: number }[];
  readonly top: readonly { readonly fn: string; readonly file: string; readonly ms: number }[];
}

function fileOf(fn: string, url: string): string {
  if (fn === '(garbage collector)') return '(garbage collector)';
  const src = /\/(src\/.*|scripts\/.*)$/.exec(url);
  if (src?.[1] !== undefined) return src[1];
  const pkg = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg?.[1] !== undefined) return `node_modules/${pkg[1]}`;
  if (url.startsWith('node:')) return 'node: built-ins';
  return url === '' ? `(native) ${fn}` : url;
}

export function summarise(p: CpuProfile, n = 25): ProfileSummary {
  const byId = new Map(p.nodes.map((x) => [x.id, x]));
  const files = new Map<string, number>();
  const frames = new Map<string, { fn: string; file: string; ms: number }>();
  let busyMs = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const node = byId.get(p.samples[i] ?? -1);
    if (node === undefined) continue;
    const { functionName: fn, url } = node.callFrame;
    if (fn === '(idle)' || fn === '(program)') continue;
    const ms = (p.timeDeltas[i] ?? 0) / 1000;
    busyMs += ms;
    const file = fileOf(fn, url);
    files.set(file, (files.get(file) ?? 0) + ms);
    const key = `${fn}@${file}`;
    const f = frames.get(key) ?? { fn, file, ms: 0 };
    f.ms += ms;
    frames.set(key, f);
  }
  return {
    busyMs,
    byFile: [...files.entries()]
      .map(([file, ms]) => ({ file, ms }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, n),
    top: [...frames.values()].sort((a, b) => b.ms - a.ms).slice(0, n),
  };
}

/** The newest profile in `dir`, summarised. */
export function profileSummary(dir: string): ProfileSummary {
  return summarise(readProfile(dir));
}
