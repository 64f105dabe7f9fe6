/**
 * Validation limits for incoming events. Pure: the clock is never read here; a maximum future skew
 * is applied only when the caller passes `nowMs` together with `maxFutureSkewMs`.
 */
import { MAX_TS } from '../keys/key-bytes.ts';
import { EventError } from './event-error.ts';

export const MIB = 1024 * 1024;
/** HBase guidance: keep cells ≤ 10 MiB (hbase.client.keyvalue.maxsize defaults to 10 MiB). */
export const HARD_MAX_CELL_BYTES = 10 * MIB;
/** 2200-01-01T00:00:00Z — a fixed sanity bound instead of "now". */
export const DEFAULT_MAX_TS = Date.UTC(2200, 0, 1);

export type EventLimits = {
  readonly minTs: number;
  readonly maxTs: number;
  /** metric names become HBase qualifiers: 1..maxMetricBytes UTF-8 bytes */
  readonly maxMetricBytes: number;
  readonly maxTags: number;
  /** bound on the raw Kafka record and on the encoded tags cell */
  readonly maxCellBytes: number;
  /** with maxFutureSkewMs: reject ts > nowMs + maxFutureSkewMs */
  readonly nowMs?: number;
  readonly maxFutureSkewMs?: number;
};

export type EventLimitsInput = { readonly [K in keyof EventLimits]?: EventLimits[K] | undefined };

export const DEFAULT_EVENT_LIMITS: EventLimits = Object.freeze({
  minTs: 0,
  maxTs: DEFAULT_MAX_TS,
  maxMetricBytes: 64,
  maxTags: 32,
  maxCellBytes: MIB,
});

const BOUNDS = {
  minTs: [0, MAX_TS],
  maxTs: [0, MAX_TS],
  maxMetricBytes: [1, 1024],
  maxTags: [0, 1024],
  maxCellBytes: [1, HARD_MAX_CELL_BYTES],
  nowMs: [0, MAX_TS],
  maxFutureSkewMs: [0, MAX_TS],
} as const satisfies Record<keyof EventLimits, readonly [number, number]>;

function isLimitKey(key: string): key is keyof EventLimits {
  return Object.hasOwn(BOUNDS, key);
}

function invalid(field: string, message: string): EventError {
  return new EventError('INVALID_LIMITS', `limits.${field}`, `limits.${field} ${message}`);
}

/** Defaults + overrides, validated; throws an EventError naming the offending `limits.<field>`. */
export function resolveEventLimits(input: EventLimitsInput = {}): EventLimits {
  const out: Record<string, number> = { ...DEFAULT_EVENT_LIMITS };
  for (const [key, value] of Object.entries(input)) {
    if (!isLimitKey(key)) throw invalid(key, `is not a known limit (known: ${Object.keys(BOUNDS).join(', ')})`);
    if (value === undefined) continue;
    const [min, max] = BOUNDS[key];
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
      throw invalid(key, `must be an integer in [${min}, ${max}], got ${String(value)}`);
    }
    out[key] = value;
  }
  const limits = out as EventLimits;
  if (limits.minTs > limits.maxTs) {
    throw invalid('minTs', `(${limits.minTs}) must be <= limits.maxTs (${limits.maxTs})`);
  }
  if ((limits.nowMs === undefined) !== (limits.maxFutureSkewMs === undefined)) {
    const missing = limits.nowMs === undefined ? 'nowMs' : 'maxFutureSkewMs';
    throw invalid(missing, 'is required when limits.nowMs / limits.maxFutureSkewMs is set (pass both or neither)');
  }
  return Object.freeze(limits);
}

/** The effective upper ts bound: maxTs, tightened by nowMs + maxFutureSkewMs when given. */
export function effectiveMaxTs(limits: EventLimits): number {
  if (limits.nowMs === undefined || limits.maxFutureSkewMs === undefined) return limits.maxTs;
  return Math.min(limits.maxTs, limits.nowMs + limits.maxFutureSkewMs);
}

/** The `events.*` settings of the configuration that bound incoming events. */
export interface EventSettings {
  readonly maxCellBytes: number;
  /** events.maxTs: the latest accepted ts (epoch ms) */
  readonly maxTs: number;
  /** events.maxFutureSkewMs: null = no bound relative to now */
  readonly maxFutureSkewMs: number | null;
}

/**
 * The limits for each flush unit, from the `events.*` settings: fixed ones are resolved (and
 * validated) once; with maxFutureSkewMs the clock is read per call, so "now" stays current.
 */
export function eventLimitsFor(settings: EventSettings, now: () => number = Date.now): () => EventLimits {
  const fixed = { maxCellBytes: settings.maxCellBytes, maxTs: settings.maxTs };
  const staticLimits = resolveEventLimits(fixed);
  const skew = settings.maxFutureSkewMs;
  if (skew === null) return () => staticLimits;
  return () => resolveEventLimits({ ...fixed, nowMs: now(), maxFutureSkewMs: skew });
}
