// A delete's progress: units (data buckets, then summaries, markers, catalog, registry) done of all,
// rows deleted and their rate on this run (a resumed run starts above 0 %), for the CLI's progress
// line. The arithmetic is the toolkit's (src/toolkit/progress-math.ts).
import { etaOf, formatDuration, fractionOf, ratePerSec } from '../toolkit/progress-math.ts';

export interface DeleteCounts {
  dataRows: number;
  indexRows: number;
  summaries: number;
  markers: number;
}

export interface DeleteSnapshot {
  readonly unitsDone: number;
  readonly unitsTotal: number;
  readonly fraction: number;
  readonly counts: Readonly<DeleteCounts>;
  readonly rowsPerSec: number;
  readonly elapsedMs: number;
  readonly etaMs: number | null;
}

export class DeleteProgress {
  readonly #startedAt: number;
  #total = 0;
  #done = 0;
  #startFraction = 0;
  readonly #counts: DeleteCounts = { dataRows: 0, indexRows: 0, summaries: 0, markers: 0 };

  constructor(now: number) {
    this.#startedAt = now;
  }

  start(total: number, resumed: number): void {
    this.#total = total;
    this.#done = resumed;
    this.#startFraction = fractionOf(resumed, 0, total);
  }

  add(delta: Partial<DeleteCounts>): void {
    for (const k of Object.keys(delta) as (keyof DeleteCounts)[]) this.#counts[k] += delta[k] ?? 0;
  }

  unitDone(): void {
    this.#done++;
  }

  snapshot(now: number): DeleteSnapshot {
    const elapsedMs = now - this.#startedAt;
    const fraction = fractionOf(this.#done, 0, this.#total);
    const c = this.#counts;
    return {
      unitsDone: this.#done,
      unitsTotal: this.#total,
      fraction,
      counts: { ...c },
      rowsPerSec: ratePerSec(c.dataRows + c.indexRows + c.summaries, elapsedMs),
      elapsedMs,
      etaMs: etaOf(this.#startFraction, fraction, elapsedMs),
    };
  }
}

export function formatDeleteProgress(p: DeleteSnapshot): string {
  const c = p.counts;
  return (
    `${(p.fraction * 100).toFixed(0)}% (${p.unitsDone}/${p.unitsTotal} units) · deleted ${c.dataRows} data rows, ${c.indexRows} index rows, ` +
    `${c.summaries} summaries · ${Math.round(p.rowsPerSec)} rows/s · ${formatDuration(p.elapsedMs)} elapsed, eta ${formatDuration(p.etaMs)}`
  );
}
