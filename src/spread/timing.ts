/**
 * Pure: when a promotion takes effect and which events need a fence (docs/KEYS.md, "When a new epoch
 * starts"). With L = leadMs, V = 3 × refreshMs (the oldest registry snapshot a writer plans with) and
 * c = clockToleranceMs (the largest difference between two hosts' clocks):
 *
 *   - a promotion at time p (the promoter's clock) starts its epoch at since = p + L;
 *   - a writer whose snapshot lacks the promotion read it before the promotion was committed, so it
 *     plans at most V later, at a time its own clock shows as ≤ p + V + c;
 *   - without asking the registry it writes only events with ts < (its now) + A, where the fence-ahead
 *     A = L − V − 2c (the second c covers the promotion's own round trip);
 *   so every event it writes without the epoch has ts < p + L = since: no event is ever written under
 *   an epoch that a promotion later changes. An event with ts ≥ now + A first raises its id's fence in
 *   the registry (check-and-put), and a promotion's since must be after the fence.
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
