// A transport decorator that lets the lightest work through first: at most `slots` requests are in
// flight (the sockets of the pool it wraps), and when one finishes, the waiting request of the lowest
// priority number goes next (ties: the earliest), not simply the earliest. The query side gives a
// request its query's weight (the series it matched, src/series-query/request-weight.ts), so a one-id panel's
// few scans do not queue behind the scans of the site-wide panels refreshed with it. A request that
// has waited `maxWaitMs` goes next whatever its weight, so heavy work is slowed, never starved. Its
// wait counts against its deadline.
import { HBaseError } from './errors.ts';
import type { HttpRequest, HttpResponse, HttpTransport } from './transport.ts';

export interface PriorityTransportOptions {
  readonly inner: HttpTransport;
  /** requests in flight at most (the inner pool's sockets) */
  readonly slots: number;
  /** the priority of the request being made (lower goes first); undefined: 0 */
  readonly priority: () => number | undefined;
  /** a waiter this old goes next whatever its priority (default 1000 ms) */
  readonly maxWaitMs?: number;
  readonly now?: () => number;
}

interface Waiter {
  readonly priority: number;
  readonly since: number;
  readonly go: () => void;
}

export class PriorityTransport implements HttpTransport {
  readonly #o: PriorityTransportOptions;
  readonly #now: () => number;
  /** in arrival order */
  readonly #waiting: Waiter[] = [];
  #active = 0;

  constructor(options: PriorityTransportOptions) {
    if (!Number.isInteger(options.slots) || options.slots < 1) throw new RangeError(`slots must be a whole number ≥ 1, got ${options.slots}`);
    this.#o = options;
    this.#now = options.now ?? (() => performance.now());
  }

  /** requests waiting for a slot */
  get waiting(): number {
    return this.#waiting.length;
  }

  async request(req: HttpRequest): Promise<HttpResponse> {
    const t0 = this.#now();
    if (this.#active >= this.#o.slots) {
      const priority = this.#o.priority() ?? 0;
      await new Promise<void>((go) => {
        this.#waiting.push({ priority, since: t0, go });
      });
    } else this.#active++;
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
      this.#next();
    }
  }

  /** Hands the finished request's slot to the next waiter (the slot stays counted), or frees it. */
  #next(): void {
    const i = this.#pick();
    if (i === undefined) {
      this.#active--;
      return;
    }
    const [w] = this.#waiting.splice(i, 1);
    w?.go();
  }

  #pick(): number | undefined {
    const q = this.#waiting;
    const oldest = q[0];
    if (oldest === undefined) return undefined;
    if (this.#now() - oldest.since >= (this.#o.maxWaitMs ?? 1000)) return 0;
    let best = 0;
    for (let i = 1; i < q.length; i++) if ((q[i] as Waiter).priority < (q[best] as Waiter).priority) best = i;
    return best;
  }

  close(): Promise<void> {
    return this.#o.inner.close();
  }
}
