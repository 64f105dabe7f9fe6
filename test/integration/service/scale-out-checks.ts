// Checks of the scale-out test that read the results back: the cluster-wide skew recording rule
// recomputed from the instances' raw series in a real Prometheus, and rollup tables compared cell
// by cell after `tsingest rollup run` processes.
import { spawn } from 'node:child_process';
import type { RowCells } from '../../../src/hbase/index.ts';
import { NODE_BIN, REPO_ROOT, retryingRest, type Harness } from '../../support/service-harness.ts';
import type { Prometheus, PromRule, PromSample } from '../observability/prometheus.ts';

export const SKEW_RULE = 'table:tsingest_region_write_skew:ratio1m';

export interface SkewPoint {
  /** evaluation time of the recorded sample (epoch seconds) */
  readonly at: number;
  readonly recorded: number;
  /** the rule's expression (recording rules it reads expanded) evaluated by a query at `at` */
  readonly evaluated: number;
  /** the same value computed here from the raw per-instance series at `at` */
  readonly computed: number;
  /** instances whose region write rate at `at` is > 0 */
  readonly instances: number;
  readonly regions: number;
}

async function matrix(prom: Prometheus, expr: string): Promise<{ metric: Record<string, string>; values: [number, string][] }[]> {
  const res = await fetch(`${prom.url}/api/v1/query?query=${encodeURIComponent(expr)}`, { signal: AbortSignal.timeout(10_000) });
  const body = (await res.json()) as { status: string; data?: { result: { metric: Record<string, string>; values: [number, string][] }[] }; error?: string };
  if (body.status !== 'success' || body.data === undefined) throw new Error(`${expr}: ${body.error ?? res.status}`);
  return body.data.result;
}

/**
 * max over regions × regions / total of the per-region write rates summed over instances, as the
 * recording rules define it, from the raw series of every instance at `at`.
 */
export function clusterSkew(rates: readonly PromSample[], regionCounts: readonly PromSample[]): { skew: number; instances: number; regions: number } {
  const perRegion = new Map<string, number>();
  const instances = new Set<string>();
  for (const s of rates) {
    const v = Number(s.value[1]);
    perRegion.set(s.metric['region'] ?? '', (perRegion.get(s.metric['region'] ?? '') ?? 0) + v);
    if (v > 0) instances.add(s.metric['instance'] ?? '');
  }
  const total = [...perRegion.values()].reduce((a, v) => a + v, 0);
  const regions = Math.max(perRegion.size, ...regionCounts.map((s) => Number(s.value[1])));
  return { skew: (Math.max(...perRegion.values()) * regions) / total, instances: instances.size, regions };
}

/**
 * A recording rule's expression with every recording rule it reads replaced by that rule's own
 * expression (recursively), so one instant query computes it from the raw series alone.
 */
export function expandRule(name: string, rules: readonly PromRule[]): string {
  const recorded = new Map(rules.filter((r) => r.type === 'recording').map((r) => [r.name, r.query]));
  const root = recorded.get(name);
  if (root === undefined) throw new Error(`no recording rule ${name} is loaded`);
  const names = [...recorded.keys()].map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const re = new RegExp(`(?<![\\w:])(${names.join('|')})(?![\\w:])`, 'g');
  let expr = root;
  for (let depth = 0; ; depth++) {
    const next = expr.replace(re, (n) => `(${recorded.get(n) ?? n})`);
    if (next === expr) return expr;
    if (depth > 10) throw new Error(`recording rules around ${name} refer to each other in a cycle`);
    expr = next;
  }
}

/**
 * The recorded samples of the last `seconds` s, each with the rule's expression evaluated by a query
 * at its time and the value recomputed here from the raw series at that time.
 */
export async function skewPoints(prom: Prometheus, job: string, table: string, seconds: number): Promise<SkewPoint[]> {
  const [series] = await matrix(prom, `${SKEW_RULE}{table="${table}"}[${seconds}s]`);
  const expr = expandRule(
    SKEW_RULE,
    (await prom.ruleGroups()).flatMap((g) => g.rules),
  );
  const out: SkewPoint[] = [];
  for (const [at, v] of series?.values ?? []) {
    const evaluated = (await prom.query(expr, at)).find((s) => s.metric['table'] === table);
    const rates = await prom.query(`rate(tsingest_region_writes_total{job="${job}",table="${table}",region!="unknown"}[1m])`, at);
    const counts = await prom.query(`tsingest_region_count{job="${job}",table="${table}"}`, at);
    const c = clusterSkew(rates, counts);
    out.push({
      at,
      recorded: Number(v),
      evaluated: evaluated === undefined ? Number.NaN : Number(evaluated.value[1]),
      computed: c.skew,
      instances: c.instances,
      regions: c.regions,
    });
  }
  return out;
}

/** Every row of a table: key (hex) → its cells as `qualifier=value` (hex), sorted. */
export function tableCells(h: Harness, table: string): Promise<Map<string, string[]>> {
  return retryingRest(`scan ${table}`, async () => {
    const rows = new Map<string, string[]>();
    for await (const row of h.rest.scan(table, { batch: 5000 }))
      rows.set(row.row.toString('hex'), row.cells.map((c) => `${c.qualifier.toString('hex')}=${c.value.toString('hex')}`).sort());
    return rows;
  });
}

/** Copies every row of `from` to `to` with its cells' timestamps (the markers ingest wrote). */
export async function copyRows(h: Harness, from: string, to: string): Promise<number> {
  const rows: RowCells[] = [];
  await retryingRest(`scan ${from}`, async () => {
    rows.length = 0;
    for await (const row of h.rest.scan(from, { batch: 5000 }))
      rows.push({ row: row.row, cells: row.cells.map((c) => ({ column: c.column, value: c.value, timestamp: c.timestamp })) });
  });
  for (let i = 0; i < rows.length; i += 500) {
    const chunk = rows.slice(i, i + 500);
    await retryingRest(`put ${to}`, () => h.rest.put(to, chunk));
  }
  return rows.length;
}

/** `tsingest rollup run` as a child process with the harness's settings; resolves with its exit code and output. */
export function rollupRun(h: Harness, sets: readonly string[]): Promise<{ code: number | null; output: string }> {
  const all = [...h.baseSets, ...sets];
  const child = spawn(NODE_BIN, ['src/cli.ts', 'rollup', 'run', ...all.flatMap((s) => ['--set', s])], {
    cwd: REPO_ROOT,
    env: { ...process.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (b: Buffer): void => {
    out = (out + b.toString()).slice(-20_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  h.defer(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return new Promise((res) => {
    child.once('exit', (code) => {
      res({ code, output: out });
    });
  });
}
