// A transport decorator that lets the lightest work through first: at most `slots` requests are in
// flight (the sockets of the pool it wraps), and when one finishes, the waiting request of the lowest
// priority number goes next (ties: the earliest), not simply the earliest. The query side gives a
// request its query's weight (the series it matched, src/series-query/request-weight.ts), so a one-id panel's
// few scans do not queue behind the scans of the site-wide panels refreshed with it. A request that
// has waited `maxWaitMs` goes next whatever its weight, so heavy work is slowed, never starved. Its
// wait counts against its deadline. `reserved` slots are kept for light requests (priority ≤
// lightMax): heavy ones never hold every socket, so a light request waits at most for other light ones.
import { HBaseError } from './errors.ts';
import type { HttpRequest, HttpResponse, HttpTransport } from './transport.ts';

export interface PriorityTransportOptions {
  readonly inner: HttpTransport;
  /** requests in flight at most (the inner pool's sockets) */
  readonly slots: number;
  /** the priority of the request being made (lower goes first); undefined: 0 */
  readonly priority: () => number | undefined;
  /**
   * Slots only light requests (priority ≤ lightMax) may take: heavy ones hold at most slots − reserved,
   * so a light request never waits behind heavy ones alone (default 0: every slot for any request)
   */
  readonly reserved?: number;
  /** the highest priority number that is light (default 0) */
  readonly lightMax?: number;
  /** a waiter this old goes next (among those a free slot may take) whatever its priority (default 1000 ms) */
  readonly maxWaitMs?: number;
  readonly now?: () => number;
}

interface Waiter {
  readonly priority: number;
  readonly light: boolean;
  readonly since: number;
  readonly go: () => void;
}

export class PriorityTransport implements HttpTransport {
  readonly #o: PriorityTransportOptions;
  readonly #now: () => number;
  readonly #heavyMax: number;
  readonly #lightMax: number;
  /** in arrival order */
  readonly #waiting: Waiter[] = [];
  #active = 0;
  #heavy = 0;

  constructor(options: PriorityTransportOptions) {
    if (!Number.isInteger(options.slots) || options.slots < 1) throw new RangeError(`slots must be a whole number ≥ 1, got ${options.slots}`);
    const reserved = options.reserved ?? 0;
    if (!Number.isInteger(reserved) || reserved < 0 || reserved >= options.slots) {
      throw new RangeError(`reserved must be a whole number from 0 to slots − 1 (${options.slots - 1}), got ${reserved}`);
    }
    this.#o = options;
    this.#now = options.now ?? (() => performance.now());
    this.#heavyMax = options.slots - reserved;
    this.#lightMax = options.lightMax ?? 0;
  }

  /** requests waiting for a slot */
  get waiting(): number {
    return this.#waiting.length;
  }

  async request(req: HttpRequest): Promise<HttpResponse> {
    const t0 = this.#now();
    const priority = this.#o.priority() ?? 0;
    const light = priority <= this.#lightMax;
    if (this.#mayStart(light)) this.#take(light);
    else {
      // #dispatch takes the slot for it before it goes
      await new Promise<void>((go) => {
        this.#waiting.push({ priority, light, since: t0, go });
      });
    }
    try {
      const left = req.deadlineMs - (this.#now() - t0);
      if (left <= 0) {
        throw new HBaseError({
          code: 'HBASE_TIMEOUT',
          retriable: true,
          message: `${req.method} ${req.path}: deadline of ${req.deadlineMs} ms passed waiting for a connection`,
        });
      }
      return await this.#o.inner.request(left === req.deadlineMs ? req : { ...req, deadlineMs: left });
    } finally {
      this.#active--;
      if (!light) this.#heavy--;
      this.#dispatch();
    }
  }

  #mayStart(light: boolean): boolean {
    return this.#active < this.#o.slots && (light || this.#heavy < this.#heavyMax);
  }

  #take(light: boolean): void {
    this.#active++;
    if (!light) this.#heavy++;
  }

  /** Starts waiters while a slot they may take is free: the one that waited maxWaitMs first, else the lightest (ties: the earliest). */
  #dispatch(): void {
    for (;;) {
      const i = this.#pick();
      if (i === undefined) return;
      const [w] = this.#waiting.splice(i, 1) as [Waiter];
      this.#take(w.light);
      w.go();
    }
  }

  #pick(): number | undefined {
    const q = this.#waiting;
    const now = this.#now();
    const maxWait = this.#o.maxWaitMs ?? 1000;
    let best: number | undefined;
    for (let i = 0; i < q.length; i++) {
      const w = q[i] as Waiter;
      if (!this.#mayStart(w.light)) continue;
      if (now - w.since >= maxWait) return i; // the earliest eligible one (arrival order)
      if (best === undefined || w.priority < (q[best] as Waiter).priority) best = i;
    }
    return best;
  }

  close(): Promise<void> {
    return this.#o.inner.close();
  }
}
