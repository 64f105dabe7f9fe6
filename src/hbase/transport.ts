// The HTTP port the HBase REST client talks through. Adapters (undici-transport.ts, test fakes)
// implement it; nothing else in src/hbase knows about a concrete HTTP library.

export type HttpMethod = 'GET' | 'PUT' | 'POST' | 'DELETE';

export interface HttpRequest {
  method: HttpMethod;
  /** Path + query, already encoded, starting with '/'. */
  path: string;
  headers: Record<string, string>;
  body?: Buffer | string;
  /** Time budget for the whole exchange (connect, send, headers, body), in ms. */
  deadlineMs: number;
}

export interface HttpResponse {
  status: number;
  /** Lower-case header names. */
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/**
 * Contract: `request` resolves for every HTTP status (errors statuses included) and rejects only
 * for transport failures, preferably with an HBaseError (code HBASE_TIMEOUT / HBASE_NETWORK / HBASE_CLOSED).
 */
export interface HttpTransport {
  request(req: HttpRequest): Promise<HttpResponse>;
  /**
   * A transport for requests that share state held by ONE server (a REST scanner: create, pages,
   * delete). A transport over several gateways pins it to the gateway that answers its first request;
   * absent, the transport itself serves sessions. Closing a session closes nothing shared.
   */
  session?(): HttpTransport;
  close(): Promise<void>;
}

export function headerValue(res: HttpResponse, name: string): string | undefined {
  const v = res.headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}
