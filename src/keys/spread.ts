/**
 * Spread ids (pure): a hot id's events over K salt buckets, by epochs. Specification: docs/KEYS.md,
 * "Spread keys".
 * Design notes: docs/DECISIONS.md#spread-keys
 */
import { hash } from 'node:crypto';
import { KeyError } from './key-error.ts';
import { assertTs } from './key-bytes.ts';
import { MAX_BUCKETS } from './salt.ts';

export interface SpreadEpoch {
  /** first event ts (epoch ms, inclusive) of the epoch */
  readonly since: number;
  /** buckets from `since` on, 2 … B */
  readonly k: number;
}

export interface SpreadEntry {
  /** ascending `since`, strictly ascending `k` (K never shrinks, an epoch that keeps K is no epoch) */
  readonly epochs: readonly SpreadEpoch[];
  /** largest far-future ts written for the id (a new epoch must start after it), or null */
  readonly fence: number | null;
}

export const EMPTY_ENTRY: SpreadEntry = Object.freeze({ epochs: Object.freeze([]), fence: null });

const tsBytes = Buffer.alloc(8);

/** j(ts, K): the bucket offset of an event in an epoch of K buckets. */
export function spreadOffset(ts: number, k: number): number {
  if (k <= 1) return 0;
  // int64_BE(ts) without BigInt: ts ≤ 2^53 − 1, so the high word is ts / 2^32 (at most 2^21 − 1).
  tsBytes.writeUInt32BE(Math.floor(ts / 0x1_0000_0000), 0);
  tsBytes.writeUInt32BE(ts % 0x1_0000_0000, 4);
  const d = hash('md5', tsBytes, 'binary');
  const word = d.charCodeAt(0) * 0x100_0000 + ((d.charCodeAt(1) << 16) | (d.charCodeAt(2) << 8) | d.charCodeAt(3));
  return word % k;
}

/** Whether two entries put every ts in the same buckets: the same epochs (no entry: none; the fence moves no row). */
export function sameEpochs(a: SpreadEntry | undefined, b: SpreadEntry | undefined): boolean {
  const x = a?.epochs ?? [];
  const y = b?.epochs ?? [];
  return (
    x.length === y.length &&
    x.every((e, i) => {
      const f = y[i] as SpreadEpoch;
      return e.since === f.since && e.k === f.k;
    })
  );
}

/** The K of the epoch containing ts (1 before the first epoch or without an entry). */
export function kAt(entry: SpreadEntry | undefined, ts: number): number {
  let k = 1;
  if (entry === undefined) return k;
  for (const e of entry.epochs) {
    if (e.since > ts) break;
    k = e.k;
  }
  return k;
}

/** The epoch containing ts, or null (K = 1). */
export function epochAt(entry: SpreadEntry | undefined, ts: number): SpreadEpoch | null {
  let found: SpreadEpoch | null = null;
  for (const e of entry?.epochs ?? []) {
    if (e.since > ts) break;
    found = e;
  }
  return found;
}

/** The largest K the id ever uses (1 without epochs). */
export function maxK(entry: SpreadEntry | undefined): number {
  const last = entry?.epochs[entry.epochs.length - 1];
  return last?.k ?? 1;
}

/** The first ts that uses bucket offset j (0 for j = 0; null when no epoch has K > j). */
export function bucketSince(entry: SpreadEntry | undefined, j: number): number | null {
  if (j === 0) return 0;
  for (const e of entry?.epochs ?? []) if (e.k > j) return e.since;
  return null;
}

function bad(message: string): KeyError {
  return new KeyError('INVALID_SPREAD', message);
}

/** Throws unless the entry is well formed for B buckets (ascending since, strictly growing K ≤ B). */
export function assertEntry(entry: SpreadEntry, buckets: number): void {
  let prev: SpreadEpoch | undefined;
  for (const e of entry.epochs) {
    assertTs(e.since, 'since');
    if (!Number.isInteger(e.k) || e.k < 2 || e.k > Math.min(buckets, MAX_BUCKETS))
      throw bad(`epoch K must be an integer in 2 … ${buckets} (B), got ${String(e.k)}`);
    if (prev !== undefined && e.since <= prev.since) throw bad(`epochs must have ascending since (${e.since} after ${prev.since})`);
    if (prev !== undefined && e.k <= prev.k) throw bad(`K never shrinks: an epoch with K ${e.k} cannot follow K ${prev.k}`);
    prev = e;
  }
  if (entry.fence !== null) assertTs(entry.fence, 'fence');
}

/**
 * The entry with one more epoch (since, k). Refused (KeyError) when k does not grow, when since is
 * not after the last epoch and the fence, or when k exceeds B.
 */
export function withEpoch(entry: SpreadEntry | undefined, epoch: SpreadEpoch, buckets: number): SpreadEntry {
  const base = entry ?? EMPTY_ENTRY;
  const current = maxK(base);
  if (epoch.k <= current) throw bad(`K never shrinks: the id already spreads over ${current} buckets, asked for ${epoch.k}`);
  if (base.fence !== null && epoch.since <= base.fence)
    throw bad(`since ${epoch.since} is not after the fence ${base.fence} (an event at that ts was already written with the current K)`);
  const next: SpreadEntry = { epochs: [...base.epochs, { since: epoch.since, k: epoch.k }], fence: base.fence };
  assertEntry(next, buckets);
  return next;
}

/** The entry with its fence raised to at least `ts`. */
export function withFence(entry: SpreadEntry | undefined, ts: number): SpreadEntry {
  const base = entry ?? EMPTY_ENTRY;
  assertTs(ts, 'fence');
  return base.fence !== null && base.fence >= ts ? base : { epochs: base.epochs, fence: ts };
}

/** Registry cell value: compact JSON {"v":1,"epochs":[[since,k],…],"fence":ts|null}, UTF-8. */
export function encodeEntry(entry: SpreadEntry): Buffer {
  return Buffer.from(JSON.stringify({ v: 1, epochs: entry.epochs.map((e) => [e.since, e.k]), fence: entry.fence }), 'utf8');
}

export function decodeEntry(bytes: Uint8Array, buckets: number): SpreadEntry {
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  } catch (cause) {
    throw new KeyError('INVALID_SPREAD', 'spread registry cell is not JSON', { cause });
  }
  const o = raw as { v?: unknown; epochs?: unknown; fence?: unknown };
  if (typeof raw !== 'object' || raw === null || o.v !== 1 || !Array.isArray(o.epochs)) throw bad('spread registry cell is not {"v":1,"epochs":[…],"fence":…}');
  const epochs = o.epochs.map((p: unknown) => {
    if (!Array.isArray(p) || p.length !== 2 || typeof p[0] !== 'number' || typeof p[1] !== 'number') throw bad('an epoch must be [since, k]');
    return { since: p[0], k: p[1] };
  });
  if (o.fence !== null && typeof o.fence !== 'number') throw bad('fence must be a number or null');
  const entry: SpreadEntry = { epochs, fence: o.fence };
  assertEntry(entry, buckets);
  return entry;
}
