// The storage phase's "after raw retention" stage (series-storage.ts runs it after the first
// measurement): our long-term footprint measured, not subtracted. Before our service first stops, the
// reference answers of its series API (retention-check.ts: per metric and site, one series per id,
// `10m-avg` planned raw from the point blocks and `1h-avg` from the hourly summaries); then the raw
// tier's retention (RAW_RETENTION_SETS: data and index rows an hour, point blocks for ever) applied
// to our tables with `tsingest tables apply`, every raw row past it; the service started again with
// those settings, the same queries asked and every answer required equal to its reference; the
// service stopped, our tables flushed and major-compacted again, and measured again.
import type { JavaTableAdmin } from '../../../src/admin/index.ts';
import { projectRoot } from '../stack/config.ts';
import { run } from '../stack/proc.ts';
import { checkQueries, compareAnswers, planMatches, seriesAndPoints, type CheckQuery } from './retention-check.ts';
import { SHIPPED } from './series-live.ts';
import { startOurService, timedFetch, waitUntil, type OurStack } from './series-service.ts';
import { compactAll, countCells, measure, type TableRoles } from './storage-measure.ts';
import { RAW_RETENTION_SETS, sideFigures, type CheckCount, type DatasetPlan, type RetentionFigures, type RowsCells } from './storage-plan.ts';

export interface Asked {
  readonly query: CheckQuery;
  /** X-Tsingest-Plan */
  readonly plan: string;
  readonly body: unknown;
}

/** Each query asked of our series API in turn; an answer other than a 200 of the plan the query must take throws. */
async function askAll(url: string, queries: readonly CheckQuery[]): Promise<Asked[]> {
  const out: Asked[] = [];
  for (const query of queries) {
    const r = await timedFetch(`${url}/api/query`, { body: query.body }, 300_000);
    if (r.status !== 200) throw new Error(`${query.label} answered ${r.status}: ${JSON.stringify(r.body).slice(0, 300)}`);
    const plan = r.plan ?? '';
    if (!planMatches(query.plan, plan)) throw new Error(`${query.label} was planned ${plan}: the check needs a ${query.plan} plan`);
    out.push({ query, plan, body: r.body });
  }
  return out;
}

/** Queries, series and points of the answers, per downsample. */
function countAnswers(answers: readonly Asked[]): CheckCount[] {
  const by = new Map<string, CheckCount>();
  for (const a of answers) {
    const { series, points } = seriesAndPoints(a.body);
    const c = by.get(a.query.downsample) ?? { downsample: a.query.downsample, plan: a.query.plan, queries: 0, series: 0, points: 0 };
    by.set(a.query.downsample, { ...c, queries: c.queries + 1, series: c.series + series, points: c.points + points });
  }
  return [...by.values()];
}

/**
 * The reference answers, from our service as it runs after the rollup wait; throws unless each
 * downsample's answers hold every series of the data set (`series`: metric + id).
 */
export async function referenceAnswers(url: string, o: { plan: DatasetPlan; series: number; say: (m: string) => void }): Promise<Asked[]> {
  const answers = await askAll(url, checkQueries(o.plan));
  if (answers.length === 0 || o.series === 0) throw new Error(`nothing to check: ${answers.length} queries over ${o.series} series`);
  for (const c of countAnswers(answers)) {
    if (c.series !== o.series)
      throw new Error(`the ${c.downsample} queries answered ${c.series} series of the ${o.series} stored: the check would not cover them all`);
    o.say(`[storage] reference answers, ${c.downsample} (${c.plan}): ${c.queries} queries, ${c.series} series, ${c.points} points`);
  }
  return answers;
}

/** Every later answer equal to its reference, or a throw naming what differs. */
function requireEqual(references: readonly Asked[], later: readonly Asked[]): void {
  const problems: string[] = [];
  references.forEach((ref, i) => {
    const c = compareAnswers(ref.body, later[i]?.body);
    if (c.differing > 0) problems.push(`${ref.query.label}: ${c.differing} differences, e.g. ${c.differences.join('; ')}`);
  });
  if (problems.length > 0)
    throw new Error(`after raw retention, ${problems.length} of ${references.length} answers differ from before:\n${problems.join('\n')}`);
}

/** `tsingest tables apply` (the CLI, as an operator runs it) with `sets`; what it printed. */
async function tablesApply(sets: readonly string[]): Promise<string[]> {
  const args = ['--disable-warning=TimeoutNegativeWarning', 'src/cli.ts', 'tables', 'apply', ...sets.flatMap((s) => ['--set', s])];
  const out = await run(process.execPath, args, { what: 'tsingest tables apply', cwd: projectRoot });
  return out.split('\n').filter((l) => l.trim() !== '');
}

/** Until the data and index tables read no cell (every row past its TTL; the altered regions reopened): the rows and cells first read, and the wait. */
async function rawRowsGone(stack: OurStack): Promise<RetentionFigures['visible']> {
  const read = async (): Promise<{ data: RowsCells; index: RowsCells }> => ({
    data: await countCells(stack.rest, stack.names.data),
    index: await countCells(stack.rest, stack.names.index),
  });
  const first = await read();
  const empty = (r: { data: RowsCells; index: RowsCells }): boolean => r.data.cells + r.index.cells === 0;
  const seconds = empty(first) ? 0 : await waitUntil('the raw rows to be past their TTL', 300_000, async () => empty(await read()), { everyMs: 5000 });
  return { ...first, seconds };
}

export interface RetentionStage {
  readonly stack: OurStack;
  readonly admin: JavaTableAdmin;
  /** HBase's root directory (store-bytes.ts) */
  readonly root: string;
  /** the consumer group our service ran with: the restart takes up at its committed offsets */
  readonly group: string;
  readonly ours: TableRoles;
  readonly references: readonly Asked[];
  readonly points: number;
  /** the TSD's total bytes as measured */
  readonly tsdBytes: number;
  readonly say: (m: string) => void;
}

/** Our service started again with the raw retention, the reference queries asked; stopped whatever happens. */
async function askRestarted(o: RetentionStage): Promise<{ answers: Asked[]; consumed: number }> {
  const svc = await startOurService(o.stack, o.group, o.say, { extra: [...SHIPPED, ...RAW_RETENTION_SETS] });
  try {
    // /metrics answers from the start, the series API once the read side is mounted: ready
    await waitUntil('our restarted service to be ready', 300_000, async () => (await timedFetch(`${svc.url}/readyz`, {}, 5000)).status === 200, {
      everyMs: 500,
    });
    const answers = await askAll(
      svc.url,
      o.references.map((r) => r.query),
    );
    return { answers, consumed: await svc.processed() };
  } finally {
    await svc.stop();
  }
}

export async function afterRawRetention(o: RetentionStage): Promise<RetentionFigures> {
  const { stack, say } = o;
  const applied = await tablesApply([...stack.sets, `kafka.groupId=${o.group}`, ...SHIPPED, ...RAW_RETENTION_SETS]);
  say(`[storage] tsingest tables apply --set ${RAW_RETENTION_SETS.join(' --set ')}:\n${applied.join('\n')}`);
  const visible = await rawRowsGone(stack);
  say(`[storage] data and index tables read empty ${visible.seconds.toFixed(0)} s after the TTLs were applied`);
  const { answers, consumed } = await askRestarted(o);
  requireEqual(o.references, answers);
  const check = countAnswers(o.references);
  say(
    `[storage] after raw retention every answer equals its reference: ${check.map((c) => `${c.downsample} ${c.series} series, ${c.points} points`).join('; ')}`,
  );
  const compaction = await compactAll(o.admin, { root: o.root, tables: o.ours, say });
  const ours = sideFigures(await measure(o.admin, { root: o.root, tables: o.ours }), o.points);
  return {
    sets: [...RAW_RETENTION_SETS],
    applied,
    visible,
    consumedOnRestart: consumed,
    check,
    plans: o.references.map((r, i) => ({ label: r.query.label, before: r.plan, after: answers[i]?.plan ?? '' })),
    ...compaction,
    ours,
    ratio: ours.bytes / o.tsdBytes,
  };
}
