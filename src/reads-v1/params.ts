/**
 * Pure: the raw string parameters of a read (HTTP or CLI) → a typed query, or a QueryError naming the
 * parameter; both front ends call it, so they accept the same things.
 * Design notes: docs/DECISIONS.md#read-parameters
 */
import { parseTimeParam } from '../events/timestamp.ts';
import { MAX_ID_BYTES } from '../keys/index.ts';
import type { QueryKind } from './meters.ts';
import { findWindow, type WindowSize } from '../rollup/windows.ts';
import { assertCursorFor, decodeCursor, type DecodedCursor, type QueryIdentity } from './cursor.ts';
import { QueryError } from './query-error.ts';
import type { QuerySpec } from './types.ts';

export type RawParams = Readonly<Record<string, string | undefined>>;
export type ParamLabel = (param: string) => string;

export const DEFAULT_TO_AHEAD_MS = 86_400_000;
const MAX_NAME_BYTES = 1024;

/** The parameters each kind accepts; anything else is an error naming it. */
export const PARAMS_BY_KIND: Readonly<Record<QueryKind, readonly string[]>> = {
  latest: ['id', 'limit', 'cursor'],
  range: ['id', 'from', 'to', 'metric', 'limit', 'cursor'],
  by_tag: ['tag', 'value', 'from', 'to', 'limit', 'cursor'],
  rollups: ['id', 'window', 'from', 'to', 'metric', 'limit', 'cursor'],
};

export interface ParamSettings {
  readonly defaultLimit: number;
  readonly maxLimit: number;
  /** index.tags: the index names a by-tag read may use */
  readonly indexTags: readonly string[];
  /** rollup.windows, parsed */
  readonly windows: readonly WindowSize[];
  /** the clock, for the default `to` */
  readonly now: number;
  readonly label?: ParamLabel;
}

class Reader {
  readonly #raw: RawParams;
  readonly #label: ParamLabel;

  constructor(raw: RawParams, label: ParamLabel) {
    this.#raw = raw;
    this.#label = label;
  }

  label(p: string): string {
    return this.#label(p);
  }

  bad(p: string, detail: string): QueryError {
    return new QueryError('BAD_PARAMETER', p, `${this.#label(p)} ${detail}`);
  }

  get(p: string): string | undefined {
    return this.#raw[p];
  }

  required(p: string): string {
    const v = this.#raw[p];
    if (v === undefined) throw this.bad(p, 'is required');
    return v;
  }

  /** A UTF-8 name (id, tag value, metric): well-formed, no NUL, bounded. */
  text(p: string, v: string, opts: { allowEmpty: boolean; maxBytes: number }): string {
    if (v === '' && !opts.allowEmpty) throw this.bad(p, 'must not be empty');
    if (v.includes('\u0000')) throw this.bad(p, 'must not contain a NUL (U+0000) character');
    if (!v.isWellFormed()) throw this.bad(p, 'contains a lone surrogate (not representable in UTF-8)');
    const bytes = Buffer.byteLength(v, 'utf8');
    if (bytes > opts.maxBytes) throw this.bad(p, `is ${bytes} UTF-8 bytes, max ${opts.maxBytes}`);
    return v;
  }

  time(p: string, fallback: number): number {
    const v = this.#raw[p];
    if (v === undefined) return fallback;
    const t = parseTimeParam(this.#label(p), v);
    if (!t.ok) throw new QueryError('BAD_PARAMETER', p, t.message);
    if (t.ms > Number.MAX_SAFE_INTEGER) throw this.bad(p, 'is beyond the largest time (2^53−1 ms)');
    return t.ms;
  }
}

function checkKnown(kind: QueryKind, raw: RawParams, label: ParamLabel): void {
  const allowed = PARAMS_BY_KIND[kind];
  for (const [p, v] of Object.entries(raw)) {
    if (v !== undefined && !allowed.includes(p)) {
      throw new QueryError(
        'UNKNOWN_PARAMETER',
        p,
        `${label(p)} is not a parameter of a ${kind.replace('_', '-')} read (allowed: ${allowed.map(label).join(', ')})`,
      );
    }
  }
}

function parseLimit(r: Reader, s: ParamSettings): number {
  const v = r.get('limit');
  if (v === undefined) return Math.min(s.defaultLimit, s.maxLimit);
  if (!/^\d+$/.test(v.trim())) throw r.bad('limit', `must be a positive integer, got "${v}"`);
  const n = Number(v.trim());
  if (n < 1) throw r.bad('limit', `must be a positive integer, got "${v}"`);
  return Math.min(n, s.maxLimit);
}

function parseId(r: Reader): string {
  return r.text('id', r.required('id'), { allowEmpty: false, maxBytes: MAX_ID_BYTES });
}

function parseMetric(r: Reader): string | null {
  const v = r.get('metric');
  return v === undefined ? null : r.text('metric', v, { allowEmpty: false, maxBytes: MAX_NAME_BYTES });
}

/** from/to: explicit, else from the cursor, else the defaults; from <= to. */
function parseBounds(r: Reader, s: ParamSettings, cursor: DecodedCursor | null): { from: number; to: number } {
  const from = r.time('from', cursor?.from ?? 0);
  const to = r.time('to', cursor?.to ?? s.now + DEFAULT_TO_AHEAD_MS);
  if (from > to) throw r.bad('from', `(${from}) must not be after ${r.label('to')} (${to})`);
  return { from, to };
}

function parseTag(r: Reader, s: ParamSettings): string {
  const tag = r.text('tag', r.required('tag'), { allowEmpty: false, maxBytes: MAX_NAME_BYTES });
  if (!s.indexTags.includes(tag)) {
    const known = s.indexTags.length === 0 ? 'none are configured' : `configured: ${s.indexTags.join(', ')}`;
    throw new QueryError('UNKNOWN_INDEX', 'tag', `${r.label('tag')} "${tag}" is not an indexed tag (index.tags; ${known})`);
  }
  return tag;
}

function parseWindow(r: Reader, s: ParamSettings): WindowSize {
  const name = r.required('window');
  const w = findWindow(s.windows, name.trim());
  if (w === undefined) {
    throw new QueryError(
      'UNKNOWN_WINDOW',
      'window',
      `${r.label('window')} "${name}" is not a configured rollup window (rollup.windows: ${s.windows.map((x) => x.name).join(', ')})`,
    );
  }
  return w;
}

function parseSpec(kind: QueryKind, r: Reader, s: ParamSettings, page: { readonly limit: number; readonly cursor: DecodedCursor | null }): QuerySpec {
  const { limit, cursor } = page;
  const after = null;
  switch (kind) {
    case 'latest':
      return { kind, id: parseId(r), limit, after };
    case 'range': {
      const id = parseId(r);
      const metric = parseMetric(r);
      return { kind, id, ...parseBounds(r, s, cursor), metric, limit, after };
    }
    case 'by_tag': {
      const tag = parseTag(r, s);
      const value = r.text('value', r.required('value'), { allowEmpty: true, maxBytes: MAX_NAME_BYTES });
      return { kind, tag, value, ...parseBounds(r, s, cursor), limit, after };
    }
    case 'rollups': {
      const id = parseId(r);
      const window = parseWindow(r, s);
      const metric = parseMetric(r);
      return { kind, id, window, ...parseBounds(r, s, cursor), metric, limit, after };
    }
  }
}

/** Parses and validates one read. Throws QueryError (400 / 404) naming the parameter at fault. */
export function parseQuery(kind: QueryKind, raw: RawParams, s: ParamSettings): QuerySpec {
  const label = s.label ?? ((p: string) => p);
  checkKnown(kind, raw, label);
  const r = new Reader(raw, label);
  const limit = parseLimit(r, s);
  const rawCursor = r.get('cursor');
  const cursor = rawCursor === undefined ? null : decodeCursor(rawCursor.trim(), label('cursor'));
  const spec = parseSpec(kind, r, s, { limit, cursor });
  if (cursor === null) return spec;
  assertCursorFor(cursor, identityOf(spec), label('cursor'));
  return { ...spec, after: cursor.position };
}

/** The identity (for cursors) of a parsed query. */
export function identityOf(q: QuerySpec): QueryIdentity {
  switch (q.kind) {
    case 'latest':
      return { kind: q.kind, id: q.id };
    case 'range':
      return { kind: q.kind, id: q.id, from: q.from, to: q.to, metric: q.metric };
    case 'by_tag':
      return { kind: q.kind, tag: q.tag, value: q.value, from: q.from, to: q.to };
    case 'rollups':
      return { kind: q.kind, id: q.id, from: q.from, to: q.to, metric: q.metric, window: q.window.seconds };
  }
}
