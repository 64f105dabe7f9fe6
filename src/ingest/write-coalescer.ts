// Coalesces the flush units the partitions of one fetch hand in at about the same time into one
// write (`batch.lingerMs`, `maxRows`).
// Design notes: docs/DECISIONS.md#write-coalescing
import type { BatchPlan, PlannedEvent, Rejected, SourceRecord } from './batch-plan.ts';
import type { EventWriter } from './event-writer.ts';

export type PlanWriter = Pick<EventWriter, 'write'>;

export interface WriteCoalescerOptions {
  readonly writer: PlanWriter;
  /** longest a unit waits for others to join its write (0: only units handed in during the same turn of the event loop) */
  readonly lingerMs: number;
  /** a group is written at once when its events reach this many */
  readonly maxRows: number;
}

interface Pending {
  readonly plan: BatchPlan;
  readonly resolve: (refused: Rejected[]) => void;
  readonly reject: (err: unknown) => void;
}

/** One write of several plans: their events in hand-in order (fences and rejects are the callers'). */
export function mergePlans(plans: readonly BatchPlan[]): BatchPlan {
  if (plans.length === 1) return plans[0] as BatchPlan;
  const events: PlannedEvent[] = [];
  for (const p of plans) for (const e of p.events) events.push(e);
  return { events, rejects: [], fences: new Map() };
}

/** The refused events of a merged write, handed back to the plan each came from (by its record). */
export function splitRefused(plans: readonly BatchPlan[], refused: readonly Rejected[]): Rejected[][] {
  const out = plans.map((): Rejected[] => []);
  if (refused.length === 0) return out;
  const owner = new Map<SourceRecord, number>();
  plans.forEach((p, i) => {
    for (const e of p.events) owner.set(e.record, i);
  });
  for (const r of refused) {
    const i = owner.get(r.record);
    if (i === undefined) throw new Error(`a refused record (offset ${r.record.offset}) belongs to no unit of the write`);
    (out[i] as Rejected[]).push(r);
  }
  return out;
}

export class WriteCoalescer implements PlanWriter {
  readonly #o: WriteCoalescerOptions;
  #pending: Pending[] = [];
  #rows = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: WriteCoalescerOptions) {
    this.#o = options;
  }

  write(plan: BatchPlan): Promise<Rejected[]> {
    if (plan.events.length === 0) return Promise.resolve([]);
    return new Promise<Rejected[]>((resolve, reject) => {
      this.#pending.push({ plan, resolve, reject });
      this.#rows += plan.events.length;
      if (this.#rows >= this.#o.maxRows) this.#flush();
      else
        this.#timer ??= setTimeout(() => {
          this.#flush();
        }, this.#o.lingerMs);
    });
  }

  #flush(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const group = this.#pending;
    this.#pending = [];
    this.#rows = 0;
    if (group.length === 0) return;
    const plans = group.map((p) => p.plan);
    this.#o.writer.write(mergePlans(plans)).then(
      (refused) => {
        let parts: Rejected[][];
        try {
          parts = splitRefused(plans, refused);
        } catch (err) {
          for (const p of group) p.reject(err);
          return;
        }
        group.forEach((p, i) => {
          p.resolve(parts[i] as Rejected[]);
        });
      },
      (err: unknown) => {
        for (const p of group) p.reject(err);
      },
    );
  }
}
