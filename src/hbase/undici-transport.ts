// HttpTransport adapter over an undici keep-alive connection Pool. The only file (with its test)
// that imports undici.
import { Pool } from 'undici';
import { HBaseError, classifyTransportError } from './errors.ts';
import type { HttpRequest, HttpResponse, HttpTransport } from './transport.ts';

export interface UndiciTransportOptions {
  /** Scheme + host + port, e.g. http://127.0.0.1:8080 (any path is ignored). */
  origin: string;
  /** Max sockets kept open to the gateway. Default 16. */
  connections?: number;
  /** How long an idle keep-alive socket is kept. Default 30 s. */
  keepAliveTimeoutMs?: number;
  /** Requests pipelined per socket. Default 1 (no pipelining). */
  pipelining?: number;
  /** TLS for an https origin; the server's certificate is always verified. */
  tls?: TransportTls;
}

/** PEM material for TLS: a CA bundle to trust instead of the system's, and a client certificate (mTLS). */
export interface TransportTls {
  readonly ca?: string | Buffer;
  readonly cert?: string | Buffer;
  readonly key?: string | Buffer;
  readonly passphrase?: string;
  /** Name the certificate must carry when the origin is an IP address or an alias (SNI too). */
  readonly servername?: string;
}

function describe(err: unknown): string {
  if (err instanceof AggregateError && err.errors.length > 0) return describe(err.errors[0]);
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return typeof code === 'string' && !err.message.includes(code) ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}

/** How long close() waits for requests in flight before aborting them. */
export const CLOSE_GRACE_MS = 1000;

export class UndiciTransport implements HttpTransport {
  readonly #pool: Pool;
  readonly #origin: string;
  #closed = false;

  constructor(opts: UndiciTransportOptions) {
    const url = new URL(opts.origin);
    this.#origin = url.origin;
    const tls = opts.tls;
    if (tls !== undefined && url.protocol !== 'https:') throw new RangeError(`TLS settings need an https origin, got ${this.#origin}`);
    this.#pool = new Pool(this.#origin, {
      connections: opts.connections ?? 16,
      keepAliveTimeout: opts.keepAliveTimeoutMs ?? 30_000,
      pipelining: opts.pipelining ?? 1,
      ...(tls === undefined ? {} : { connect: { ...tls, rejectUnauthorized: true } }),
    });
  }

  async request(req: HttpRequest): Promise<HttpResponse> {
    const where = `${req.method} ${this.#origin}${req.path}`;
    if (this.#closed) {
      throw new HBaseError({ code: 'HBASE_CLOSED', retriable: false, message: `${where}: transport is closed` });
    }
    if (!(req.deadlineMs > 0)) {
      throw new HBaseError({ code: 'HBASE_INVALID_ARGUMENT', message: `${where}: deadlineMs must be > 0` });
    }
    const controller = new AbortController();
    const timer = setTimeout(() => {
      controller.abort();
    }, req.deadlineMs);
    try {
      const res = await this.#pool.request({
        path: req.path,
        method: req.method,
        headers: req.headers,
        body: req.body ?? null,
        signal: controller.signal,
        // Backstops; the AbortSignal above enforces the overall deadline.
        headersTimeout: req.deadlineMs + 1000,
        bodyTimeout: req.deadlineMs + 1000,
      });
      if (res.statusCode === 204 || res.statusCode === 304) {
        // HBase's Jetty answers 304 (failed check=put/delete) with "Content-Length: 20" and, as
        // HTTP requires, no body; undici then fails the body with UND_ERR_RES_CONTENT_LENGTH_MISMATCH
        // (and drops the socket). Bodiless statuses: ignore whatever happens to the body.
        await res.body.dump().catch(() => undefined);
        return { status: res.statusCode, headers: res.headers, body: Buffer.alloc(0) };
      }
      const body = Buffer.from(await res.body.arrayBuffer());
      return { status: res.statusCode, headers: res.headers, body };
    } catch (err) {
      if (controller.signal.aborted) {
        throw new HBaseError({
          code: 'HBASE_TIMEOUT',
          retriable: true,
          message: `${where}: deadline of ${req.deadlineMs} ms exceeded`,
          cause: err,
        });
      }
      const { code, retriable } = classifyTransportError(err);
      throw new HBaseError({ code, retriable, message: `${where}: ${describe(err)}`, cause: err });
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Waits up to `graceMs` for requests in flight, then aborts them: a call HBase never answers (a
   * stuck region server, a frozen gateway) must not hold a shutdown past its deadline.
   */
  async close(graceMs = CLOSE_GRACE_MS): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((res) => {
      timer = setTimeout(() => {
        res('late');
      }, graceMs);
      timer.unref();
    });
    try {
      const closing = this.#pool.close();
      closing.catch(() => undefined); // a destroy below may end it with an error: nobody waits for that
      if ((await Promise.race([closing, late])) === 'late') {
        await this.#pool.destroy(new Error(`HBase transport closed with requests still in flight after ${graceMs} ms`));
      }
    } finally {
      clearTimeout(timer);
    }
  }
}
