/**
 * Pure: the opaque page cursor, base64url of a small versioned JSON (kind, query fingerprint, from,
 * to, merge position).
 * Design notes: docs/DECISIONS.md#page-cursors
 */
import { createHash } from 'node:crypto';
import { QUERY_KINDS, type QueryKind } from './meters.ts';
import { QueryError } from './query-error.ts';

export const CURSOR_VERSION = 2;
/** A cursor longer than this is not one of ours (the position is at most a few hundred bytes). */
const MAX_CURSOR_CHARS = 4096;

/** What a query asks for; two queries with equal identities may share cursors. */
export interface QueryIdentity {
  readonly kind: QueryKind;
  readonly id?: string;
  readonly tag?: string;
  readonly value?: string;
  readonly from?: number;
  readonly to?: number;
  readonly metric?: string | null;
  /** window length in seconds */
  readonly window?: number;
}

export interface DecodedCursor {
  readonly kind: QueryKind;
  readonly fingerprint: string;
  readonly from?: number;
  readonly to?: number;
  readonly position: Buffer;
}

export function fingerprintOf(q: QueryIdentity): string {
  const canonical = JSON.stringify([q.kind, q.id ?? null, q.tag ?? null, q.value ?? null, q.from ?? null, q.to ?? null, q.metric ?? null, q.window ?? null]);
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 16);
}

export function encodeCursor(q: QueryIdentity, position: Buffer): string {
  const body: Record<string, unknown> = { v: CURSOR_VERSION, k: q.kind, q: fingerprintOf(q) };
  if (q.from !== undefined) body['f'] = q.from;
  if (q.to !== undefined) body['t'] = q.to;
  body['p'] = position.toString('base64url');
  return Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');
}

function bad(param: string, detail: string): QueryError {
  return new QueryError('BAD_CURSOR', 'cursor', `${param} is not a valid cursor: ${detail}`);
}

function optionalTime(o: Record<string, unknown>, key: string, param: string): number | undefined {
  const v = o[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw bad(param, `field ${key} is not an epoch-ms time`);
  return v;
}

/** Parses a cursor; `param` is how the caller spells the parameter in messages (`cursor`, `--cursor`). */
export function decodeCursor(text: string, param = 'cursor'): DecodedCursor {
  if (text.length === 0 || text.length > MAX_CURSOR_CHARS || !/^[A-Za-z0-9_-]+$/.test(text))
    throw bad(param, 'expected a base64url string as returned in `next`');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw bad(param, 'it does not decode to JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw bad(param, 'it does not decode to an object');
  const o = parsed as Record<string, unknown>;
  if (o['v'] !== CURSOR_VERSION) throw bad(param, `unsupported version ${String(o['v'])}`);
  const kind = o['k'];
  if (typeof kind !== 'string' || !(QUERY_KINDS as readonly string[]).includes(kind)) throw bad(param, 'unknown query kind');
  const fingerprint = o['q'];
  if (typeof fingerprint !== 'string' || fingerprint === '') throw bad(param, 'no query fingerprint');
  const p = o['p'];
  if (typeof p !== 'string' || p === '' || !/^[A-Za-z0-9_-]+$/.test(p)) throw bad(param, 'no position');
  const from = optionalTime(o, 'f', param);
  const to = optionalTime(o, 't', param);
  return {
    kind: kind as QueryKind,
    fingerprint,
    ...(from === undefined ? {} : { from }),
    ...(to === undefined ? {} : { to }),
    position: Buffer.from(p, 'base64url'),
  };
}

/** Throws a 400 naming `cursor` unless the cursor was issued for this very query. */
export function assertCursorFor(c: DecodedCursor, q: QueryIdentity, param = 'cursor'): void {
  if (c.kind !== q.kind || c.fingerprint !== fingerprintOf(q)) {
    throw new QueryError(
      'BAD_CURSOR',
      'cursor',
      `${param} belongs to a different query (it was issued for another kind, id, tag, value, from, to, metric or window)`,
    );
  }
}
