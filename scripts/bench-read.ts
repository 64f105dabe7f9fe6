// npm run bench:read -- [--events 500000] [--ids 10000] [--buckets 16] [--queries 200]
//                       [--rollup-history 100000] [--rollup-new 20000] [--ingest-events 200000] [--keep]
// The read side's numbers (issue 6): query latency (latest-100, one id's day, by-tag over B buckets),
// rollup job cost for the same new data on a table 1× and 10× larger, and ingest throughput with
// 2 index tags vs none. Results go to bench-results/read-<date>.json and BENCHMARKS.md.
import { parseArgs } from 'node:util';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Kafka, logLevel } from 'kafkajs';
import { stackUp } from './lib/stack/local-stack.ts';
import { endpointsFromEnv, projectRoot } from './lib/stack/config.ts';
import { JavaTableAdmin } from '../src/admin/index.ts';
import { machineInfo, machineLine } from './lib/bench/report.ts';
import { ingestPhase, queryPhase, rollupPhase, type Ctx, type Endpoints, type Latency } from './lib/bench/read-phases.ts';
import { stackRestClient } from './lib/stack/client.ts';
import { deleteRunTopics } from './lib/stack/topics.ts';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '500000' },
    ids: { type: 'string', default: '10000' },
    buckets: { type: 'string', default: '16' },
    queries: { type: 'string', default: '200' },
    'rollup-history': { type: 'string', default: '100000' },
    'rollup-new': { type: 'string', default: '20000' },
    'ingest-events': { type: 'string', default: '200000' },
    keep: { type: 'boolean', default: false },
    // experiments: a subset of the phases (q = queries, r = rollup, i = ingest) and extra config for
    // every phase; only a run of all three phases rewrites BENCHMARKS.md
    phases: { type: 'string', default: 'q,r,i' },
    set: { type: 'string', multiple: true },
  },
});
const say = (m: string): void => {
  process.stdout.write(`[bench:read] ${m}\n`);
};
const root = projectRoot;

function intArg(name: string): number {
  const raw = values[name as keyof typeof values];
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer, got ${String(raw)}`);
  return n;
}

async function endpoints(): Promise<Endpoints> {
  const named = endpointsFromEnv();
  if (named !== undefined && named.adminCommand.length > 0)
    return { restUrl: named.restUrl, brokers: named.kafkaBrokers, adminCommand: JSON.stringify(named.adminCommand) };
  say('TSI_HBASE_REST_URL / TSI_KAFKA_BROKERS / TSI_ADMIN_COMMAND not all set: starting the embedded local stack');
  const ep = await stackUp(say);
  return { restUrl: ep.restUrl, brokers: ep.kafkaBrokers, adminCommand: JSON.stringify(ep.adminCommand) };
}

const ms = (n: number): string => `${n.toFixed(1)} ms`;
const lat = (l: Latency, what: string): string => `${ms(l.p50)} / ${ms(l.p99)} (${l.n} queries, ${Math.round(l.meanItems)} ${what} each on average)`;
const pass = (ok: boolean): string => (ok ? 'met' : '**not met**');
/** seconds per 1,000 events: `seconds` for `events` events */
const perK = (seconds: number, events: number): string => `${((seconds / events) * 1000).toFixed(3)} s`;

async function main(): Promise<number> {
  const ep = await endpoints();
  const run = `bread_${Date.now().toString(36)}`;
  const rest = stackRestClient(ep.restUrl, ['hbase.connections=32']);
  const ctx: Ctx = {
    ep,
    run,
    buckets: intArg('buckets'),
    ids: intArg('ids'),
    rest,
    admin: new JavaTableAdmin({ command: JSON.parse(ep.adminCommand) as string[] }),
    say,
    created: { tables: [], topics: [] },
    sets: values.set ?? [],
  };
  try {
    const phases = new Set(values.phases.split(','));
    const runQueries = async (): Promise<Awaited<ReturnType<typeof queryPhase>>> => {
      const q = await queryPhase(ctx, intArg('events'), intArg('queries'));
      say(
        `latest-100 p50/p99 ${ms(q.latest100.p50)} / ${ms(q.latest100.p99)}; id-day ${ms(q.idDay.p50)} / ${ms(q.idDay.p99)}; by-tag ${ms(q.byTag.p50)} / ${ms(q.byTag.p99)}; by-tag rack ${ms(q.byTagRack.p50)} / ${ms(q.byTagRack.p99)}`,
      );
      return q;
    };
    if (!['q', 'r', 'i'].every((p) => phases.has(p))) {
      if (phases.has('q')) await runQueries();
      if (phases.has('r')) await rollupPhase(ctx, intArg('rollup-history'), intArg('rollup-new'));
      if (phases.has('i')) await ingestPhase(ctx, intArg('ingest-events'));
      return 0;
    }
    const q = await runQueries();
    const r = await rollupPhase(ctx, intArg('rollup-history'), intArg('rollup-new'));
    const i = await ingestPhase(ctx, intArg('ingest-events'));
    const date = new Date().toISOString();
    const command = `npm run bench:read -- --events ${intArg('events')} --ids ${ctx.ids} --buckets ${ctx.buckets} --queries ${intArg('queries')} --rollup-history ${intArg('rollup-history')} --rollup-new ${intArg('rollup-new')} --ingest-events ${intArg('ingest-events')}`;
    const result = { date, command, machine: machineInfo(root), query: q, rollup: r, ingest: i };
    mkdirSync(`${root}/bench-results`, { recursive: true });
    const file = `bench-results/read-${date.replace(/[:.]/g, '-')}.json`;
    writeFileSync(`${root}/${file}`, `${JSON.stringify(result, null, 2)}\n`);
    const table = [
      `Latest run: ${date} — \`${command}\` — results file \`${file}\``,
      '',
      `Machine: ${machineLine(result.machine)}`,
      '',
      '| figure | value | target |',
      '|---|---|---|',
      `| data loaded for the reads | ${q.load.dataRows.toLocaleString('en')} data rows + ${q.load.indexRows.toLocaleString('en')} index rows (tags site, rack), ${ctx.ids} ids (Zipf s=1.1), last 48 h, B=${ctx.buckets} | |`,
      `| latest-100 of an id, p50 / p99 | ${lat(q.latest100, 'events')} | p50 ≤ 20 ms: ${pass(q.latest100.p50 <= 20)} |`,
      `| one id's UTC day (range, Zipf ranks 20–99), p50 / p99 | ${lat(q.idDay, 'events')} | |`,
      `| by-tag site=…, B=${ctx.buckets} buckets, limit 100, verified, p50 / p99 | ${lat(q.byTag, 'events')} | p50 ≤ 100 ms: ${pass(q.byTag.p50 <= 100)} |`,
      `| by-tag rack=… (13 values), limit 100, p50 / p99 | ${lat(q.byTagRack, 'events')} | |`,
      `| rollup job, same ${r.small.newEvents.toLocaleString('en')} new events (one closed hour, ${r.small.marks} marks in ${r.small.markers} marker rows): table with ${r.small.historyRows.toLocaleString('en')} rows | ${r.small.seconds.toFixed(2)} s (median of ${r.small.rounds.map((x) => x.toFixed(2)).join(', ')}), ${r.small.windows} windows of 1 h, ${Math.round(r.small.windows / r.small.seconds).toLocaleString('en')} windows/s | |`,
      `| … the same on a table with ${r.large.historyRows.toLocaleString('en')} rows (10×) | ${r.large.seconds.toFixed(2)} s (median of ${r.large.rounds.map((x) => x.toFixed(2)).join(', ')}), ${r.large.windows} windows of 1 h, ${Math.round(r.large.windows / r.large.seconds).toLocaleString('en')} windows/s | |`,
      `| rollup cost ratio 10× / 1× (both data tables flushed and major-compacted first, ${r.settleSeconds.toFixed(0)} s) | ${r.ratio.toFixed(2)} | ≤ 1.2: ${pass(r.ratio <= 1.2)} |`,
      `| rollup seconds per 1,000 new events vs the ingest's seconds for 1,000 events (no index / 2 tags, below) | ${perK(r.small.seconds, r.small.newEvents)} vs ${perK(1, i.none.eventsPerSec)} / ${perK(1, i.twoTags.eventsPerSec)} | job ≤ drain: ${pass(r.small.seconds / r.small.newEvents <= 1 / i.none.eventsPerSec)} (no index), ${pass(r.small.seconds / r.small.newEvents <= 1 / i.twoTags.eventsPerSec)} (2 tags) |`,
      `| ingest (real service draining ${i.none.seconds > 0 ? intArg('ingest-events').toLocaleString('en') : '?'} events from Kafka), no index tags | ${Math.round(i.none.eventsPerSec).toLocaleString('en')} events/s | |`,
      `| … with 2 index tags (site, rack) | ${Math.round(i.twoTags.eventsPerSec).toLocaleString('en')} events/s | |`,
      `| index overhead (no-index / 2-tag throughput) | ${i.overhead.toFixed(2)}× | ≤ 1.6×: ${pass(i.overhead <= 1.6)} |`,
    ].join('\n');
    const md = readFileSync(`${root}/BENCHMARKS.md`, 'utf8');
    const begin = '<!-- bench:read:begin -->';
    const end = '<!-- bench:read:end -->';
    const a = md.indexOf(begin);
    const b = md.indexOf(end);
    if (a < 0 || b < a) throw new Error('BENCHMARKS.md has no bench:read markers');
    writeFileSync(`${root}/BENCHMARKS.md`, `${md.slice(0, a + begin.length)}\n${table}\n${md.slice(b)}`);
    say(`results: ${file}; BENCHMARKS.md updated`);
    process.stdout.write(`${table}\n`);
    return 0;
  } finally {
    if (values.keep) say(`--keep: leaving tables ${run}_*`);
    else {
      say(`dropping ${ctx.created.tables.length} tables and ${ctx.created.topics.length} topics`);
      for (const t of ctx.created.tables)
        await rest.deleteTable(t, { ignoreMissing: true, deadlineMs: 120_000 }).catch((err: unknown) => {
          say(`could not drop ${t}: ${String(err)}`);
        });
      if (ctx.created.topics.length > 0) {
        const admin = new Kafka({ clientId: run, brokers: ep.brokers.split(','), logLevel: logLevel.NOTHING }).admin();
        await admin.connect();
        await deleteRunTopics(admin, ctx.created.topics);
        await admin.disconnect();
      }
    }
    await rest.close();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
    process.exit(code);
  },
  (err: unknown) => {
    process.stderr.write(`[bench:read] error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
