// Pure: which gateway of a set takes the next request, and which gateways are in rotation. No I/O,
// no timers, no clock: the gateway-set transport (gateway-set.ts) reports what happened and runs the
// probes with the delays this returns.
//
// Selection: the healthy gateway with the fewest requests in flight, ties in round-robin order (so an
// idle set still alternates). A gateway that failed a connection is out of rotation until a probe (or
// any request) gets an HTTP answer from it. When no gateway is healthy, requests still go out (to the
// least loaded of all): the caller then sees the real error and its own retry and outage logic apply.

/** Delay before probing a gateway that is out: baseMs after it went out, doubling per failed probe up to maxMs. */
export interface ProbeBackoff {
  readonly baseMs: number;
  readonly maxMs: number;
}

interface GatewayState {
  healthy: boolean;
  inFlight: number;
  /** failed probes since it went out */
  probes: number;
}

export class GatewayBook {
  readonly #states: GatewayState[];
  readonly #backoff: ProbeBackoff;
  /** where the round-robin tie-break starts next */
  #next = 0;

  constructor(size: number, backoff: ProbeBackoff) {
    if (!Number.isSafeInteger(size) || size < 1) throw new RangeError(`a gateway set needs at least one gateway, got ${size}`);
    if (!(backoff.baseMs > 0) || backoff.maxMs < backoff.baseMs) throw new RangeError('probe backoff: 0 < baseMs <= maxMs');
    this.#states = Array.from({ length: size }, () => ({ healthy: true, inFlight: 0, probes: 0 }));
    this.#backoff = backoff;
  }

  get size(): number {
    return this.#states.length;
  }

  healthy(i: number): boolean {
    return this.#state(i).healthy;
  }

  inFlight(i: number): number {
    return this.#state(i).inFlight;
  }

  /** Gateways in rotation. */
  healthyCount(): number {
    return this.#states.filter((s) => s.healthy).length;
  }

  /**
   * The gateway for the next attempt: the least loaded healthy one not in `exclude` (gateways this
   * request already failed on). With `exclude` empty and no gateway healthy: the least loaded of all.
   * Undefined when nothing is left to try.
   */
  pick(exclude: ReadonlySet<number> = new Set()): number | undefined {
    const anyHealthy = this.#states.some((s, i) => s.healthy && !exclude.has(i));
    if (!anyHealthy && exclude.size > 0) return undefined;
    let best: number | undefined;
    const n = this.#states.length;
    for (let k = 0; k < n; k++) {
      const i = (this.#next + k) % n;
      const s = this.#state(i);
      if (exclude.has(i) || (anyHealthy && !s.healthy)) continue;
      if (best === undefined || s.inFlight < this.#state(best).inFlight) best = i;
    }
    if (best !== undefined) this.#next = (best + 1) % n;
    return best;
  }

  begin(i: number): void {
    this.#state(i).inFlight++;
  }

  end(i: number): void {
    const s = this.#state(i);
    s.inFlight = Math.max(0, s.inFlight - 1);
  }

  /** The gateway gave an HTTP answer (any status): in rotation. True when that changed its health. */
  answered(i: number): boolean {
    const s = this.#state(i);
    const changed = !s.healthy;
    s.healthy = true;
    s.probes = 0;
    return changed;
  }

  /**
   * A connection-level failure (refused, reset, connect timeout): out of rotation. Returns the delay
   * before its first probe when this took it out, undefined when it was out already (a probe is due).
   */
  failed(i: number): number | undefined {
    const s = this.#state(i);
    if (!s.healthy) return undefined;
    s.healthy = false;
    s.probes = 0;
    return this.#backoff.baseMs;
  }

  /** A probe got no answer: the delay before the next one (doubling, capped). */
  probeFailed(i: number): number {
    const s = this.#state(i);
    s.probes++;
    return Math.min(this.#backoff.maxMs, this.#backoff.baseMs * 2 ** Math.min(s.probes, 30));
  }

  #state(i: number): GatewayState {
    const s = this.#states[i];
    if (s === undefined) throw new RangeError(`no gateway ${i} in a set of ${this.#states.length}`);
    return s;
  }
}
