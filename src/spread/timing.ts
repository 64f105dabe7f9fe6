/**
 * Pure: when a promotion takes effect and which events need a fence (docs/KEYS.md, "When an epoch
 * starts").
 * Design notes: docs/DECISIONS.md#when-an-epoch-starts
 */
import { InputError } from '../errors.ts';
export interface SpreadTiming {
  /** L: how far ahead of the promotion an epoch starts */
  readonly leadMs: number;
  /** registry refresh period of each instance */
  readonly refreshMs: number;
  /** V: a snapshot older than this is not used to plan writes */
  readonly validityMs: number;
  /** A: events this far ahead of the writer's clock (or further) raise their id's fence first */
  readonly fenceAheadMs: number;
  /** c: the largest difference between two hosts' clocks */
  readonly clockToleranceMs: number;
}

export interface SpreadTimingSettings {
  readonly leadMs: number;
  readonly refreshMs: number;
  readonly clockToleranceMs: number;
}

export function spreadTiming(s: SpreadTimingSettings): SpreadTiming {
  const validityMs = 3 * s.refreshMs;
  const fenceAheadMs = s.leadMs - validityMs - 2 * s.clockToleranceMs;
  if (fenceAheadMs <= 0)
    throw new InputError(`keys.spread.leadMs (${s.leadMs}) must exceed 3 × refreshMs + 2 × clockToleranceMs (${validityMs + 2 * s.clockToleranceMs})`, {
      field: 'keys.spread.leadMs',
    });
  return { leadMs: s.leadMs, refreshMs: s.refreshMs, validityMs, fenceAheadMs, clockToleranceMs: s.clockToleranceMs };
}

/** The since of an epoch promoted at `now`: L ahead, after the id's last epoch and after its fence. */
export function sinceFor(now: number, timing: SpreadTiming, lastSince: number | undefined, fence: number | null): number {
  return Math.max(now + timing.leadMs, (lastSince ?? -1) + 1, (fence ?? -1) + 1);
}

/**
 * The fence an event at `ts` raises: ts plus the fence-ahead, so the id's next events of the same
 * far-future burst do not each need a check-and-put (a later fence only delays that id's next epoch).
 */
export function fenceFor(ts: number, timing: SpreadTiming): number {
  return Math.min(Number.MAX_SAFE_INTEGER, ts + timing.fenceAheadMs);
}
