// HttpTransport over several HBase REST gateways: attempts, failover, probes and pinned sessions,
// each attempt reported to an observer. The choice of gateway is gateway-book.ts's, the failure
// rules gateway-rules.ts's.
// Design notes: docs/DECISIONS.md#several-gateways
import { HBaseError } from './errors.ts';
import { GatewayBook, type ProbeBackoff } from './gateway-book.ts';
import { connectionFailure, gatewayLabel, mayResend } from './gateway-rules.ts';
import type { HttpRequest, HttpResponse, HttpTransport } from './transport.ts';

export interface Gateway {
  /** the gateway's base URL (its origin is the metric label) */
  readonly url: string;
  readonly transport: HttpTransport;
}

/** Outcome of one attempt on one gateway: an answer below 500, a 5xx answer, a connection failure (out of rotation), the request's deadline, anything else. */
export const GATEWAY_OUTCOMES = ['ok', 'server_error', 'connection_error', 'timeout', 'error'] as const;
export type GatewayOutcome = (typeof GATEWAY_OUTCOMES)[number];

export interface GatewayObserver {
  attempted(gateway: string, outcome: GatewayOutcome, seconds: number): void;
  /** the gateway went out of rotation (false) or came back (true) */
  health(gateway: string, up: boolean): void;
}

export interface GatewaySetOptions {
  readonly gateways: readonly Gateway[];
  /** Path (with the gateways' common prefix) that a probe GETs, e.g. /version/cluster. */
  readonly probePath: string;
  readonly probe?: Partial<ProbeBackoff> & { readonly deadlineMs?: number };
  readonly observer?: GatewayObserver;
}

function outcomeOf(err: unknown): GatewayOutcome {
  if (connectionFailure(err) !== null) return 'connection_error';
  return err instanceof HBaseError && err.code === 'HBASE_TIMEOUT' ? 'timeout' : 'error';
}

export class GatewaySetTransport implements HttpTransport {
  readonly #gateways: readonly (Gateway & { readonly label: string })[];
  readonly #book: GatewayBook;
  readonly #probePath: string;
  readonly #probeDeadlineMs: number;
  readonly #observer: GatewayObserver | undefined;
  readonly #probes = new Map<number, NodeJS.Timeout>();
  #closed = false;

  constructor(opts: GatewaySetOptions) {
    this.#gateways = opts.gateways.map((g) => ({ ...g, label: gatewayLabel(g.url) }));
    this.#book = new GatewayBook(this.#gateways.length, { baseMs: opts.probe?.baseMs ?? 500, maxMs: opts.probe?.maxMs ?? 10_000 });
    this.#probePath = opts.probePath;
    this.#probeDeadlineMs = opts.probe?.deadlineMs ?? 5000;
    this.#observer = opts.observer;
    for (const g of this.#gateways) this.#observer?.health(g.label, true);
  }

  /** Gateway labels with their state, for logs and tests. */
  status(): { gateway: string; healthy: boolean; inFlight: number }[] {
    return this.#gateways.map((g, i) => ({ gateway: g.label, healthy: this.#book.healthy(i), inFlight: this.#book.inFlight(i) }));
  }

  request(req: HttpRequest): Promise<HttpResponse> {
    return this.#route(req);
  }

  session(): HttpTransport {
    let pinned: number | undefined;
    return {
      request: async (req) => {
        if (pinned === undefined)
          return this.#route(req, (i) => {
            pinned = i;
          });
        const at = pinned;
        try {
          return await this.#attempt(at, req);
        } catch (err) {
          if (connectionFailure(err) === null) throw err;
          const label = this.#gateways[at]?.label ?? '?';
          throw new HBaseError({
            code: 'HBASE_GATEWAY_LOST',
            message: `${req.method} ${label}${req.path}: the gateway holding this scanner failed mid-scan (${err instanceof Error ? err.message : String(err)}); the scan must start over`,
            cause: err,
          });
        }
      },
      close: () => Promise.resolve(),
    };
  }

  async #route(req: HttpRequest, answeredBy?: (i: number) => void): Promise<HttpResponse> {
    const tried = new Set<number>();
    let at = this.#book.pick();
    for (;;) {
      if (at === undefined) throw new Error('gateway set: no gateway to try'); // unreachable: pick() with nothing excluded always answers
      try {
        const res = await this.#attempt(at, req);
        answeredBy?.(at);
        return res;
      } catch (err) {
        const failure = connectionFailure(err);
        if (failure === null || !mayResend(req, failure)) throw err;
        tried.add(at);
        const next = this.#book.pick(tried);
        if (next === undefined) throw err;
        at = next;
      }
    }
  }

  async #attempt(i: number, req: HttpRequest): Promise<HttpResponse> {
    const g = this.#gateway(i);
    const t0 = performance.now();
    const took = (): number => (performance.now() - t0) / 1000;
    this.#book.begin(i);
    try {
      const res = await g.transport.request(req);
      this.#observer?.attempted(g.label, res.status >= 500 ? 'server_error' : 'ok', took());
      this.#answered(i);
      return res;
    } catch (err) {
      const outcome = outcomeOf(err);
      this.#observer?.attempted(g.label, outcome, took());
      if (outcome === 'connection_error') this.#takeOut(i);
      throw err;
    } finally {
      this.#book.end(i);
    }
  }

  #answered(i: number): void {
    if (!this.#book.answered(i)) return;
    clearTimeout(this.#probes.get(i));
    this.#probes.delete(i);
    this.#observer?.health(this.#gateway(i).label, true);
  }

  #takeOut(i: number): void {
    const delay = this.#book.failed(i);
    if (delay === undefined) return;
    this.#observer?.health(this.#gateway(i).label, false);
    this.#scheduleProbe(i, delay);
  }

  #scheduleProbe(i: number, delayMs: number): void {
    if (this.#closed) return;
    const timer = setTimeout(() => {
      void this.#probe(i);
    }, delayMs);
    timer.unref();
    this.#probes.set(i, timer);
  }

  async #probe(i: number): Promise<void> {
    this.#probes.delete(i);
    if (this.#closed || this.#book.healthy(i)) return;
    try {
      await this.#gateway(i).transport.request({
        method: 'GET',
        path: this.#probePath,
        headers: { accept: 'application/json' },
        deadlineMs: this.#probeDeadlineMs,
      });
      this.#answered(i);
    } catch {
      if (!this.#book.healthy(i)) this.#scheduleProbe(i, this.#book.probeFailed(i));
    }
  }

  #gateway(i: number): Gateway & { readonly label: string } {
    const g = this.#gateways[i];
    if (g === undefined) throw new RangeError(`no gateway ${i}`);
    return g;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const t of this.#probes.values()) clearTimeout(t);
    this.#probes.clear();
    await Promise.all(this.#gateways.map((g) => g.transport.close()));
  }
}
