// `tsingest delete` timed on the local stack (issue 28's target: an id with 100,000 events over 16
// buckets deleted, with verification, in under 60 s). Fresh tables (B = 16, index on `site`); one id
// spread over all 16 buckets by a registry epoch; its events written as ingest writes them (data rows,
// index rows for every other event, which carries `site`, finest-window markers, catalog rows), its
// summaries by `tsingest rollup run`; then `tsingest delete --id … --json` is run as a child process
// and timed from spawn to exit. Writes bench-results/delete-<time>.json; drops its tables.
//   node_modules/.bin/node scripts/bench-delete.ts [--events 100000] [--concurrency 64]
// Needs TSI_HBASE_REST_URL and TSI_ADMIN_COMMAND (as the integration tests do).
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { seriesRow } from '../src/catalog/index.ts';
import { buildEventCells, buildIndexRows } from '../src/events/index.ts';
import { column } from '../src/hbase/index.ts';
import { markerPuts, putRowOf } from '../src/rollup/index.ts';
import { loadConfig } from '../src/runtime/index.ts';
import { createHBaseClient, keyspaceOf, registryStore, tablesOf } from '../src/service/index.ts';
import { fixedLookup } from '../src/keys/index.ts';
import { runLimited } from '../src/toolkit/index.ts';
import { projectRoot } from './lib/stack/config.ts';

const ROOT = projectRoot;
const { values } = parseArgs({ options: { events: { type: 'string', default: '100000' }, concurrency: { type: 'string', default: '64' } } });
const EVENTS = Number(values.events);
const say = (m: string): void => {
  process.stderr.write(`${new Date().toISOString()} ${m}\n`);
};

const run = `bench_del_${Date.now().toString(36)}`;
const admin = process.env['TSI_ADMIN_COMMAND'] ?? '';
if (admin === '') throw new Error('TSI_ADMIN_COMMAND is needed (a JSON argv of the table admin tool)');
const sets = [
  'keys.saltBuckets=16',
  'index.tags=["site"]',
  `tables.data.name=${run}_d`,
  `tables.index.name=${run}_i`,
  `tables.rollup.name=${run}_r`,
  `tables.meta.name=${run}_m`,
  `hbase.adminCommand=${admin}`,
  'kafka.groupId=unused',
  'rollup.markerSettleMs=0',
  'log.level=warn',
];
const cfg = loadConfig({ env: process.env, sets });
const rest = createHBaseClient(cfg, 'tool');
const ID = 'bench-hot-0001';
const BASE = 1_732_262_400_000;
const entry = { epochs: [{ since: BASE, k: 16 }], fence: null };
const ks = keyspaceOf(cfg, fixedLookup({ [ID]: entry }));
const tables = tablesOf(cfg);
const fam = { data: tables.data.family, index: tables.index.family, rollup: tables.rollup.family, meta: tables.meta.family };

function cli(argv: readonly string[]): Promise<{ code: number | null; stdout: string; ms: number }> {
  const t0 = performance.now();
  const child = spawn(join(ROOT, 'node_modules/.bin/node'), ['src/cli.ts', ...argv, ...sets.flatMap((s) => ['--set', s])], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.on('data', (b: Buffer) => {
    stdout += b.toString();
  });
  return new Promise((done) =>
    child.once('close', (code) => {
      done({ code, stdout, ms: performance.now() - t0 });
    }),
  );
}

async function write(table: string, rows: { row: Buffer; cells: readonly { column: Buffer; value: Buffer; timestamp?: number }[] }[]): Promise<void> {
  const chunks = Array.from({ length: Math.ceil(rows.length / 1000) }, (_, i) => rows.slice(i * 1000, (i + 1) * 1000));
  await runLimited(chunks, 4, (c) => rest.put(table, c));
}

try {
  say(`tables ${run}_*`);
  const applied = await cli(['tables', 'apply']);
  if (applied.code !== 0) throw new Error(`tsingest tables apply exited ${String(applied.code)}:\n${applied.stdout}`);
  await registryStore(cfg, tables, rest).update(ID, () => entry);
  const events = Array.from({ length: EVENTS }, (_, i) => ({
    id: ID,
    ts: BASE + i * 1000,
    metric: i % 3 === 0 ? 'temp' : 'hum',
    value: i / 8,
    tags: i % 2 === 0 ? { site: `s${i % 4}` } : {},
  }));
  const data = events.map((e) => putRowOf({ key: ks.dataKey(e.id, e.ts), cells: buildEventCells(e, fam.data) }));
  const index = events.flatMap((e) =>
    buildIndexRows(
      { id: e.id, ts: e.ts, tags: e.tags, metrics: [e.metric], offset: ks.offsetOf(e.id, e.ts) },
      { keyspace: ks, indexFamily: fam.index, indexTags: ['site'] },
    ).map(putRowOf),
  );
  const hours = [...new Set(events.map((e) => e.ts - (e.ts % 3_600_000)))];
  const markers = markerPuts(
    hours.map((windowStart) => ({ id: ID, windowSec: 3600, windowStart })),
    { keyspace: ks, family: fam.rollup, stamp: Date.now() },
  ).map((m) => putRowOf(m.row));
  const series = [...new Map(events.map((e) => [`${e.metric}|${JSON.stringify(e.tags)}`, seriesRow({ metric: e.metric, id: ID, tags: e.tags })])).values()];
  const catalog = series.map((s) => ({ row: s.key, cells: [{ column: column(fam.meta, 't'), value: s.value }] }));
  say(
    `writing ${data.length} data rows over ${new Set(data.map((r) => r.row[0])).size} buckets, ${index.length} index rows, ${markers.length} marker rows, ${catalog.length} catalog rows`,
  );
  await write(tables.data.name, data);
  await write(tables.index.name, index);
  await write(tables.rollup.name, markers);
  await write(tables.meta.name, catalog);
  say('rollup run');
  const rollup = await cli(['rollup', 'run']);
  if (rollup.code !== 0) throw new Error(`rollup run exited ${String(rollup.code)}`);
  say('delete');
  const del = await cli(['delete', '--id', ID, '--json', '--concurrency', values.concurrency]);
  const result = JSON.parse(del.stdout) as Record<string, unknown>;
  const record = {
    bench: 'delete',
    at: new Date().toISOString(),
    command: `node_modules/.bin/node scripts/bench-delete.ts --events ${EVENTS} --concurrency ${values.concurrency}`,
    events: EVENTS,
    buckets: 16,
    dataRows: data.length,
    indexRows: index.length,
    wallMs: Math.round(del.ms),
    exitCode: del.code,
    result,
  };
  await mkdir(join(ROOT, 'bench-results'), { recursive: true });
  const file = join(ROOT, 'bench-results', `delete-${record.at.replaceAll(':', '-').replaceAll('.', '-')}.json`);
  await writeFile(file, `${JSON.stringify(record, null, 2)}\n`);
  say(`delete: exit ${String(del.code)} in ${(del.ms / 1000).toFixed(1)} s (spawn to exit, verification included) → ${file}`);
  process.stdout.write(`${JSON.stringify(record)}\n`);
  // A time measured on a delete that did not delete everything, or did not verify it, is no figure.
  const deletedRows = (result['deleted'] as { dataRows?: number } | undefined)?.dataRows ?? 0;
  if (del.code !== 0 || deletedRows !== data.length || result['clean'] !== true) {
    say(`FAILED: exit ${String(del.code)}, ${deletedRows} of ${data.length} data rows deleted, clean ${String(result['clean'])}`);
    process.exitCode = 1;
  }
} finally {
  for (const t of tables.names) {
    await rest.deleteTable(t, { ignoreMissing: true, deadlineMs: 120_000 }).catch((err: unknown) => {
      say(`could not drop ${t}: ${String(err)}`);
    });
  }
  await rest.close();
}
