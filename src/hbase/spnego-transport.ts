// SPNEGO (Kerberos `Negotiate`, RFC 4559) in front of one gateway, as a decorator of its
// HttpTransport: negotiate once, then send the gateway's `hadoop.auth` cookie.
// Design notes: docs/DECISIONS.md#spnego
import type { HttpRequest, HttpResponse, HttpTransport } from './transport.ts';

/** A fresh initial SPNEGO token (base64) for the gateway; rejects with an HBaseError naming the setting to check. */
export type NegotiateToken = () => Promise<string>;

export interface SpnegoTransportOptions {
  readonly token: NegotiateToken;
  /** Negotiate again this long before the cookie's expiry (ms), at most a tenth of its lifetime. Default 60 s. */
  readonly renewBeforeMs?: number;
  readonly now?: () => number;
}

const COOKIE = 'hadoop.auth';

interface AuthCookie {
  /** `hadoop.auth=<value>`, the value as the gateway sent it (quoted) */
  readonly header: string;
  /** ms since the epoch; Infinity when the cookie names none */
  readonly expiresAt: number;
}

/** The `hadoop.auth` cookie of a response: a cookie, `null` when the gateway cleared it, undefined when absent. */
export function authCookie(res: HttpResponse): AuthCookie | null | undefined {
  const raw = res.headers['set-cookie'];
  const all = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  for (const line of all) {
    const pair = line.split(';', 1)[0] ?? '';
    const eq = pair.indexOf('=');
    if (eq < 0 || pair.slice(0, eq).trim() !== COOKIE) continue;
    const value = pair.slice(eq + 1).trim();
    if (value === '' || value === '""') return null;
    const e = /(?:^|[&"])e=(\d+)/.exec(value);
    return { header: `${COOKIE}=${value}`, expiresAt: e === null ? Number.POSITIVE_INFINITY : Number(e[1]) };
  }
  return undefined;
}

function withHeader(req: HttpRequest, name: string, value: string): HttpRequest {
  return { ...req, headers: { ...req.headers, [name]: value } };
}

export class SpnegoTransport implements HttpTransport {
  readonly #inner: HttpTransport;
  readonly #token: NegotiateToken;
  readonly #renewBeforeMs: number;
  readonly #now: () => number;
  #cookie: { readonly header: string; readonly renewAt: number } | undefined;
  #handshake: Promise<unknown> | undefined;
  #negotiations = 0;

  constructor(inner: HttpTransport, opts: SpnegoTransportOptions) {
    this.#inner = inner;
    this.#token = opts.token;
    this.#renewBeforeMs = opts.renewBeforeMs ?? 60_000;
    this.#now = opts.now ?? Date.now;
  }

  /** Requests sent with a Negotiate token so far (each one Kerberos handshake). */
  get negotiations(): number {
    return this.#negotiations;
  }

  async request(req: HttpRequest): Promise<HttpResponse> {
    if (this.#usable() === undefined && this.#handshake !== undefined) await this.#handshake.catch(() => undefined);
    const cookie = this.#usable();
    if (cookie !== undefined) {
      const res = await this.#inner.request(withHeader(req, 'cookie', cookie.header));
      this.#remember(res);
      if (res.status !== 401) return res;
      // Expired, or signed with a secret the gateway no longer has: forget it and negotiate again.
      if (this.#cookie === cookie) this.#cookie = undefined;
    }
    return this.#negotiate(req);
  }

  async close(): Promise<void> {
    this.#cookie = undefined;
    await this.#inner.close();
  }

  #usable(): { readonly header: string } | undefined {
    const c = this.#cookie;
    return c !== undefined && this.#now() < c.renewAt ? c : undefined;
  }

  #remember(res: HttpResponse): void {
    const c = authCookie(res);
    if (c === undefined) return;
    if (c === null) {
      this.#cookie = undefined;
      return;
    }
    const now = this.#now();
    this.#cookie = { header: c.header, renewAt: c.expiresAt - Math.min(this.#renewBeforeMs, (c.expiresAt - now) / 10) };
  }

  async #negotiate(req: HttpRequest): Promise<HttpResponse> {
    const leader = this.#handshake === undefined;
    const exchange = (async () => {
      const token = await this.#token();
      this.#negotiations += 1;
      const res = await this.#inner.request(withHeader(req, 'authorization', `Negotiate ${token}`));
      this.#remember(res);
      return res;
    })();
    if (leader) {
      this.#handshake = exchange;
      void exchange
        .catch(() => undefined)
        .finally(() => {
          if (this.#handshake === exchange) this.#handshake = undefined;
        });
    }
    return exchange;
  }
}
