// Where a series API request's time went, phase by phase, for its Server-Timing header
// (docs/SERIES-API.md, "Where a query's time goes").

/** A request's phases, one after another: entering one ends the one before. */
export class PhaseClock {
  readonly #now: () => number;
  readonly #spent = new Map<string, number>();
  #phase: string | undefined;
  #since = 0;

  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  /** Ends the phase under way (if any) and starts `name`; a phase entered again adds to its time. */
  enter(name: string): void {
    this.stop();
    this.#phase = name;
    this.#since = this.#now();
  }

  /** Ends the phase under way. */
  stop(): void {
    if (this.#phase === undefined) return;
    this.#spent.set(this.#phase, (this.#spent.get(this.#phase) ?? 0) + (this.#now() - this.#since));
    this.#phase = undefined;
  }

  /** ms spent per phase, in the order they were first entered */
  get spent(): ReadonlyMap<string, number> {
    return this.#spent;
  }

  /** The Server-Timing header's value (`name;dur=ms`, one decimal), the phase under way ended first. */
  header(): string {
    this.stop();
    return [...this.#spent].map(([name, ms]) => `${name};dur=${ms.toFixed(1)}`).join(', ');
  }
}

/** A Server-Timing header's phases (ms by name); what is not `name;dur=N` is left out. */
export function parseServerTiming(value: string | null): Map<string, number> {
  const out = new Map<string, number>();
  for (const part of (value ?? '').split(',')) {
    const m = /^\s*([A-Za-z0-9_-]+)\s*;\s*dur=([0-9.]+)\s*$/.exec(part);
    if (m !== null) out.set(m[1] as string, (out.get(m[1] as string) ?? 0) + Number(m[2]));
  }
  return out;
}
