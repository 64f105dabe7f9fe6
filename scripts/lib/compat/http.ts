// HTTP for the side-by-side check: one suite query to one side (status + parsed body + time), and
// the TSD-side retry while the local HBase restarts under it (a 5xx or a dropped connection that is
// not the answer the query expects).
import type { Answer } from './compare.ts';
import type { CompatQuery } from './suite.ts';

export interface TimedAnswer extends Answer {
  readonly ms: number;
}

/** Sends `q` unchanged to `base` (no trailing slash); the body parsed as JSON (text when it is not JSON). */
export async function send(base: string, q: CompatQuery, timeoutMs = 120_000): Promise<TimedAnswer> {
  const t0 = performance.now();
  const res = await fetch(`${base}${q.path}`, {
    method: q.method,
    ...(q.body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(q.body) }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  const ms = performance.now() - t0;
  let body: unknown;
  try {
    body = text === '' ? null : JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, body, ms };
}

/**
 * The TSD's answer, retried (up to `attempts`, `waitMs` apart) on a dropped connection, a timeout or
 * a 5xx: on this machine HBase may be restarted under the TSD for a minute at a time.
 */
export async function sendToTsd(
  base: string,
  q: CompatQuery,
  say: (m: string) => void,
  retry: { readonly attempts?: number; readonly waitMs?: number } = {},
): Promise<TimedAnswer> {
  const { attempts = 12, waitMs = 10_000 } = retry;
  let last: unknown;
  for (let i = 1; i <= attempts; i++) {
    try {
      const a = await send(base, q, 60_000);
      if (a.status < 500) return a;
      last = new Error(`${q.name}: the TSD answered ${a.status}: ${JSON.stringify(a.body).slice(0, 300)}`);
    } catch (err) {
      last = err;
    }
    if (i < attempts) {
      say(`${q.name}: attempt ${i} failed (${last instanceof Error ? last.message : String(last)}); retrying in ${waitMs / 1000} s`);
      await new Promise((r) => setTimeout(r, waitMs));
    }
  }
  throw last instanceof Error ? last : new Error(String(last));
}
