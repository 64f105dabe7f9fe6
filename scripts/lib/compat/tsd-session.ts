// The reference side of the side-by-side check: OpenTSDB 2.4.1's TSD on the running local stack,
// with four tables named for this run, fed the data set (sync puts, retried while HBase restarts),
// and ready only once a raw query per metric counts every point. Fails loudly when the stack is not
// there: this never starts a stack, nor skips.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JavaTableAdmin } from '../../../src/admin/index.ts';
import { putPoints, queryPoints } from '../opentsdb/io.ts';
import { queryPath, tsdTables, type OpenTsdbPoint } from '../opentsdb/plan.ts';
import { createTsdTables, dropTsdTables, startTsd } from '../opentsdb/tsd.ts';
import { freePort } from '../stack/probes.ts';
import { projectRoot, stackLayout, type StackEndpoints } from '../stack/config.ts';
import { countsByMetric, endMs, METRICS, points, type DatasetParams } from './dataset.ts';
import { stackRestClient } from '../stack/client.ts';
import { COMPAT_SALT_BUCKETS } from './tsd-order.ts';

/** Throws unless HBase's REST gateway answers (retried for `waitMs`: HBase may be restarting). */
export async function requireStack(ep: StackEndpoints, say: (m: string) => void, waitMs = 180_000): Promise<void> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const r = await fetch(`${ep.restUrl}/version/cluster`, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(5000) }).then(
      (x) => (x.ok ? '' : `HTTP ${x.status}`),
      (err: unknown) => String(err),
    );
    if (r === '') return;
    if (Date.now() > deadline) throw new Error(`HBase's REST gateway at ${ep.restUrl} is not answering (${r}): is the local stack running?`);
    say(`HBase at ${ep.restUrl} not answering (${r}); waiting`);
    await new Promise((res) => setTimeout(res, 5000));
  }
}

function pomVersion(): string {
  const pom = readFileSync(join(projectRoot, 'deploy/local/opentsdb/pom.xml'), 'utf8');
  return /<opentsdb\.version>([^<]+)</.exec(pom)?.[1] ?? '?';
}

async function retried<T>(
  what: string,
  say: (m: string) => void,
  fn: () => Promise<T>,
  retry: { readonly attempts?: number; readonly waitMs?: number } = {},
): Promise<T> {
  const { attempts = 18, waitMs = 10_000 } = retry;
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (err) {
      if (i >= attempts) throw err;
      say(`${what}: ${err instanceof Error ? err.message.slice(0, 200) : String(err)}; retrying in ${waitMs / 1000} s (HBase restarting?)`);
      await new Promise((r) => setTimeout(r, waitMs));
    }
  }
}

export interface CompatTsd {
  readonly url: string;
  /** e.g. `2.4.1 (revision …)`: the pom names the version, the TSD its revision */
  readonly version: string;
  /** stops the TSD and drops its tables (idempotent) */
  close(): Promise<void>;
}

/** Starts the TSD on the stack with tables `<run>_tsdb…`, puts `dataset`, waits until every point reads back. */
export async function openTsd(o: { ep: StackEndpoints; dataset: DatasetParams; run: string; say: (m: string) => void }): Promise<CompatTsd> {
  const { ep, dataset, say } = o;
  await requireStack(ep, say);
  const rest = stackRestClient(ep.restUrl);
  const admin = new JavaTableAdmin({ command: ep.adminCommand });
  const tables = tsdTables(o.run);
  const work = mkdtempSync(join(tmpdir(), 'tsi-compat-'));
  let stopTsd: (() => Promise<void>) | undefined;
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    if (stopTsd !== undefined) await stopTsd();
    await dropTsdTables(rest, tables, say);
    rmSync(work, { recursive: true, force: true });
    say(`TSD stopped, tables ${o.run}_tsdb* dropped`);
  };
  try {
    say(`tables ${tables.data}, ${tables.uid}, ${tables.tree}, ${tables.meta}`);
    await retried('creating the TSD tables', say, () => createTsdTables(admin, tables, COMPAT_SALT_BUCKETS));
    const tsd = await startTsd({
      cacheDir: stackLayout().cacheDir,
      workDir: work,
      zkQuorum: ep.zkQuorum,
      port: await freePort(),
      tables,
      buckets: COMPAT_SALT_BUCKETS,
      heap: '1g',
      say,
    });
    stopTsd = () => tsd.stop();
    const revision = await fetch(`${tsd.url}/api/version`).then(async (r) => ((await r.json()) as { short_revision?: string }).short_revision ?? '?');
    const version = `${pomVersion()} (revision ${revision})`;
    const all: OpenTsdbPoint[] = points(dataset);
    say(`TSD ${version} up at ${tsd.url} (pid ${tsd.pid}); putting ${all.length} points (sync)`);
    const t0 = performance.now();
    for (let i = 0; i < all.length; i += 5000) {
      const chunk = all.slice(i, i + 5000);
      await retried(`put of points ${i}..${i + chunk.length}`, say, () => putPoints(tsd.url, chunk, 500, 4));
    }
    say(`put ${all.length} points in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    await waitForAll(tsd.url, dataset, say, { waitMs: 300_000, who: 'the TSD' });
    return { url: tsd.url, version, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** Until a raw `none` query per metric over the whole set counts every point of the data set at `url` (the TSD or ours). */
export async function waitForAll(
  url: string,
  dataset: DatasetParams,
  say: (m: string) => void,
  wait: { readonly waitMs: number; readonly who: string },
): Promise<void> {
  const { waitMs, who } = wait;
  const want = countsByMetric(dataset);
  const deadline = Date.now() + waitMs;
  for (const metric of METRICS) {
    for (;;) {
      const path = queryPath({ aggregator: 'none', metrics: [metric], filter: {}, start: dataset.startMs, end: endMs(dataset) - 1 });
      const got = await queryPoints(url, path).catch((err: unknown) => {
        say(`reading ${metric} back: ${String(err).slice(0, 200)}`);
        return -1;
      });
      if (got === want[metric]) break;
      if (Date.now() > deadline) throw new Error(`${who} reads ${got} ${metric} points back, the data set has ${want[metric]}`);
      await new Promise((r) => setTimeout(r, 5000));
    }
  }
  say(
    `${who} reads back every point (${Object.entries(want)
      .map(([m, n]) => `${m} ${n}`)
      .join(', ')})`,
  );
}
