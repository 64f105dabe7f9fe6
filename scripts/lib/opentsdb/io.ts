// HTTP to the TSD: /api/put in batches with sync=true (several in flight), /api/query timed.
import { checkPutSummary, countPoints, timedOutOnly, type OpenTsdbPoint } from './plan.ts';

export interface PutResult {
  readonly points: number;
  readonly seconds: number;
  readonly pointsPerSec: number;
}

/** Attempts of a batch whose points all timed out or were stored (a put is idempotent: the same points land in the same cells). */
const PUT_ATTEMPTS = 4;

/**
 * One /api/put of `batch` with sync=true: resolves once HBase acknowledged every point; throws unless
 * all were stored. A batch the TSD answers with timeouts only (none failed: its HBase writes did not
 * finish in time, as on a region server busy with a flush) is sent again, up to PUT_ATTEMPTS times in
 * all, as a production collector does.
 */
export async function putBatch(url: string, batch: readonly OpenTsdbPoint[]): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    // sync=true: the TSD answers once HBase acknowledged every point of the batch (or timed out).
    const res = await fetch(`${url}/api/put?summary=true&sync=true&sync_timeout=120000`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(batch),
      signal: AbortSignal.timeout(180_000),
    });
    const text = await res.text();
    let body: unknown = null;
    try {
      body = text === '' ? null : JSON.parse(text);
    } catch {
      body = text.slice(0, 500);
    }
    if (attempt < PUT_ATTEMPTS && timedOutOnly(res.status, body)) {
      await new Promise((r) => setTimeout(r, 1000 * attempt));
      continue;
    }
    checkPutSummary(res.status, body, batch.length);
    return;
  }
}

/** Writes every point, `batchSize` per request, at most `inFlight` requests at once; stops at the first failure. */
/** Writes in flight: each tracked until it settles, the first failure kept. */
export class InFlight {
  readonly pending = new Set<Promise<unknown>>();
  failure: unknown;

  add(p: Promise<unknown>): void {
    this.pending.add(p);
    p.then(
      () => this.pending.delete(p),
      (err: unknown) => {
        this.failure ??= err;
        this.pending.delete(p);
      },
    );
  }

  /** Resolves once every write tracked so far settled; throws the first failure. */
  async settled(what: string): Promise<void> {
    await Promise.allSettled([...this.pending]);
    if (this.failure !== undefined) throw this.failure instanceof Error ? this.failure : new Error(`${what} failed`, { cause: this.failure });
  }
}

export async function putPoints(url: string, points: Iterable<OpenTsdbPoint>, batchSize: number, inFlight: number): Promise<PutResult> {
  const writes = new InFlight();
  const { pending } = writes;
  let n = 0;
  let batch: OpenTsdbPoint[] = [];
  const send = async (): Promise<void> => {
    writes.add(putBatch(url, batch));
    batch = [];
    if (pending.size >= inFlight) await Promise.race(pending).catch(() => undefined);
  };
  const t0 = performance.now();
  for (const p of points) {
    batch.push(p);
    n++;
    if (batch.length >= batchSize) await send();
    if (writes.failure !== undefined) break;
  }
  if (batch.length > 0 && writes.failure === undefined) await send();
  await writes.settled('OpenTSDB put');
  const seconds = (performance.now() - t0) / 1000;
  return { points: n, seconds, pointsPerSec: n / seconds };
}

/** One /api/query; returns the number of data points in the answer. */
export async function queryPoints(url: string, path: string): Promise<number> {
  const res = await fetch(`${url}${path}`, { signal: AbortSignal.timeout(120_000) });
  const body: unknown = await res.json();
  if (!res.ok) throw new Error(`OpenTSDB ${path} answered ${res.status}: ${JSON.stringify(body).slice(0, 500)}`);
  return countPoints(body);
}

/** One read through our HTTP read API, every page followed to the end; returns the items read. */
export async function readAllPages(base: string, path: string): Promise<number> {
  let items = 0;
  let cursor: string | null = null;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const res = await fetch(`${base}${path}${cursor === null ? '' : `${sep}cursor=${encodeURIComponent(cursor)}`}`, { signal: AbortSignal.timeout(120_000) });
    const body = (await res.json()) as { items?: unknown[]; next?: string | null };
    if (!res.ok || !Array.isArray(body.items)) throw new Error(`read API ${path} answered ${res.status}: ${JSON.stringify(body).slice(0, 500)}`);
    items += body.items.length;
    cursor = body.next ?? null;
  } while (cursor !== null);
  return items;
}
