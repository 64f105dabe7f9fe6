// The recorded reference answers: one folder per data set (`<dir>/<dataset name>/`) with a manifest
// (data set parameters, TSD version, the queries) and one file per query (the request as sent, the
// TSD's status and parsed body). Error bodies lose OpenTSDB's Java `trace` (large, never compared).
// Unit tests of our computation read these instead of a running TSD.
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Answer } from './compare.ts';
import type { DatasetParams } from './dataset.ts';
import type { CompatQuery, Shape } from './suite.ts';

export interface RecordedAnswer {
  readonly name: string;
  readonly shape: Shape;
  readonly method: 'POST' | 'GET';
  readonly path: string;
  readonly body?: unknown;
  readonly answer: Answer;
}

export interface Manifest {
  readonly tsdVersion: string;
  readonly recordedAt: string;
  readonly dataset: DatasetParams;
  readonly points: number;
  readonly queries: readonly { readonly name: string; readonly shape: Shape; readonly status: number; readonly series: number; readonly points: number }[];
}

/** The answer as recorded: an error body without `error.trace`. */
export function forRecording(a: Answer): Answer {
  const b = a.body;
  if (typeof b === 'object' && b !== null && !Array.isArray(b)) {
    const e = (b as Record<string, unknown>)['error'];
    if (typeof e === 'object' && e !== null && 'trace' in e) {
      const rest = { ...(e as Record<string, unknown>) };
      delete rest['trace'];
      return { status: a.status, body: { ...b, error: rest } };
    }
  }
  return a;
}

export function countAnswer(a: Answer): { series: number; points: number } {
  if (!Array.isArray(a.body)) return { series: 0, points: 0 };
  let points = 0;
  for (const s of a.body as unknown[]) {
    const dps = typeof s === 'object' && s !== null ? (s as Record<string, unknown>)['dps'] : undefined;
    if (Array.isArray(dps)) points += dps.length;
    else if (typeof dps === 'object' && dps !== null) points += Object.keys(dps).length;
  }
  return { series: a.body.length, points };
}

export function writeRecording(dir: string, m: Omit<Manifest, 'queries'>, answers: readonly { q: CompatQuery; answer: Answer }[]): string {
  const target = join(dir, m.dataset.name);
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  const queries: Manifest['queries'][number][] = [];
  for (const { q, answer } of answers) {
    const rec: RecordedAnswer = {
      name: q.name,
      shape: q.shape,
      method: q.method,
      path: q.path,
      ...(q.body === undefined ? {} : { body: q.body }),
      answer: forRecording(answer),
    };
    writeFileSync(join(target, `${q.name}.json`), `${JSON.stringify(rec, null, 1)}\n`);
    queries.push({ name: q.name, shape: q.shape, status: answer.status, ...countAnswer(answer) });
  }
  const manifest: Manifest = { ...m, queries };
  writeFileSync(join(target, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return target;
}

/** Every recorded data set under `dir` (folders with a manifest). */
export function recordedSets(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
}

export function readManifest(dir: string, set: string): Manifest {
  return JSON.parse(readFileSync(join(dir, set, 'manifest.json'), 'utf8')) as Manifest;
}

export function readRecorded(dir: string, set: string, name: string): RecordedAnswer {
  return JSON.parse(readFileSync(join(dir, set, `${name}.json`), 'utf8')) as RecordedAnswer;
}
