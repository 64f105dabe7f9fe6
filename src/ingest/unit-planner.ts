// Plans one flush unit (records → rows) with the spread registry in the loop: only with a registry
// snapshot younger than its validity, and an event far enough ahead of the clock that a promotion
// could still give its ts a new epoch is planned only after its id's fence covers it (src/spread/,
// docs/KEYS.md). Without a registry it is the plan as is. Both waits go through the ingest path's
// outage policy, as the writes do: retried while HBase is away, reported to the outage watch (so a
// registry that cannot be read or fenced pauses consumption and turns the service not ready), and
// never the end of the service for a transient error. Planning runs in slices (planSliced): the ingest's
// event loop is given back whenever SLICE_MS of it is spent, across every unit it plans.
import { ServiceError } from '../errors.ts';
import { Slices, nextTurnOnly } from '../toolkit/slices.ts';
import { planSliced, type BatchPlan, type PlanSettings, type SourceRecord } from './batch-plan.ts';
import type { OutagePolicy } from './outage-policy.ts';

/** What the planner needs from the spread registry (src/spread/registry.ts SpreadRegistry fits). */
export interface SpreadGate {
  ready(signal?: AbortSignal): Promise<void>;
  fenceHorizon(): number;
  raiseFences(need: ReadonlyMap<string, number>): Promise<void>;
}

export type UnitPlanner = (records: readonly SourceRecord[]) => Promise<BatchPlan>;

/**
 * `slices`: one for every unit this planner plans (units of several partitions are planned side by
 * side: a slice is the loop's time since any of them gave it back); a pause gives one turn of the loop.
 */
export function unitPlanner(
  settings: () => PlanSettings,
  gate?: SpreadGate,
  policy?: OutagePolicy,
  slices: Slices = new Slices({ yieldTurn: nextTurnOnly }),
): UnitPlanner {
  const pause = (): Promise<void> | undefined => (slices.due() ? slices.pause() : undefined);
  const planUnit = (records: readonly SourceRecord[], s: PlanSettings): Promise<BatchPlan> => planSliced(records, s, pause);
  if (gate === undefined) return (records) => planUnit(records, settings());
  const run = <T>(call: () => Promise<T>): Promise<T> => (policy === undefined ? call() : policy.run(call));
  return async (records) => {
    await run(() => gate.ready(policy?.signal));
    // The horizon is the clock's when the snapshot was known fresh, and stays so for the whole plan:
    // a plan that pauses (and meets a refreshed snapshot) is as safe as one that did not (KEYS.md).
    const s: PlanSettings = { ...settings(), fenceFrom: gate.fenceHorizon() };
    const plan = await planUnit(records, s);
    if (plan.fences.size === 0) return plan;
    await run(() => gate.raiseFences(plan.fences));
    // The snapshot now holds the raised fences, and any epoch the check-and-put found.
    const again = await planUnit(records, s);
    if (again.fences.size > 0)
      throw new ServiceError({ code: 'INTERNAL', message: `spread registry fences of ${[...again.fences.keys()].slice(0, 3).join(', ')} were not raised` });
    return again;
  };
}
