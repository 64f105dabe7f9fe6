// Plans one flush unit (records → rows) with the spread registry in the loop: only with a registry
// snapshot younger than its validity, and an event far enough ahead of the clock that a promotion
// could still give its ts a new epoch is planned only after its id's fence covers it (src/spread/,
// docs/KEYS.md). Without a registry it is planBatch as is.
import { planBatch, type BatchPlan, type PlanSettings, type SourceRecord } from './batch-plan.ts';

/** What the planner needs from the spread registry (src/spread/registry.ts SpreadRegistry fits). */
export interface SpreadGate {
  ready(signal?: AbortSignal): Promise<void>;
  fenceHorizon(): number;
  raiseFences(need: ReadonlyMap<string, number>): Promise<void>;
}

export type UnitPlanner = (records: readonly SourceRecord[]) => Promise<BatchPlan>;

export function unitPlanner(settings: () => PlanSettings, gate?: SpreadGate, signal?: AbortSignal): UnitPlanner {
  if (gate === undefined) return (records) => Promise.resolve(planBatch(records, settings()));
  return async (records) => {
    await gate.ready(signal);
    const s: PlanSettings = { ...settings(), fenceFrom: gate.fenceHorizon() };
    const plan = planBatch(records, s);
    if (plan.fences.size === 0) return plan;
    await gate.raiseFences(plan.fences);
    // The snapshot now holds the raised fences, and any epoch the check-and-put found.
    const again = planBatch(records, s);
    if (again.fences.size > 0) throw new Error(`spread registry fences of ${[...again.fences.keys()].slice(0, 3).join(', ')} were not raised`);
    return again;
  };
}
