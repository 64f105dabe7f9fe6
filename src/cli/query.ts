// tsingest query latest|range|by-tag|rollups — the same parameter rules and read paths as the HTTP
// read API (src/reads-v1). A human table by default; --json prints one JSON object per line: the items,
// then {"next": cursor|null, "limit": n[, "dangling": n]}.
import { rephrase } from '../errors.ts';
import { isHBaseError } from '../hbase/index.ts';
import type { QueryKind } from '../reads-v1/meters.ts';
import { createQueries } from '../reads-v1/queries.ts';
import { QueryError } from '../reads-v1/query-error.ts';
import type { EventItem, PageEnd, QueryItem, RollupItem } from '../reads-v1/types.ts';
import { createHBaseClient } from '../service/clients.ts';
import { openKeyspace, tablesOf } from '../service/keyspace.ts';
import { UsageError, configOf, out, parseCommand, stringFlag } from './args.ts';

export const QUERY_USAGE =
  'tsingest query latest --id ID | range --id ID [--from T] [--to T] [--metric M] | by-tag --tag NAME --value V [--from T] [--to T] | ' +
  'rollups --id ID --window W [--from T] [--to T] [--metric M]   (all: [--limit N] [--cursor C] [--json])';

const KINDS: Readonly<Record<string, QueryKind>> = { latest: 'latest', range: 'range', 'by-tag': 'by_tag', rollups: 'rollups' };
const PARAMS = ['id', 'tag', 'value', 'from', 'to', 'metric', 'window', 'limit', 'cursor'] as const;

function fmt(n: number | null): string {
  if (n === null) return '-';
  return Number.isInteger(n) ? String(n) : String(Number(n.toPrecision(10)));
}

function pairs(o: Readonly<Record<string, string | number>>): string {
  const entries = Object.entries(o);
  return entries.length === 0 ? '-' : entries.map(([k, v]) => `${k}=${typeof v === 'number' ? fmt(v) : v}`).join(' ');
}

function eventLine(e: EventItem): string {
  return `${e.time.padEnd(24)}  ${e.id.padEnd(16)}  ${pairs(e.metrics).padEnd(24)}  ${pairs(e.tags)}`;
}

function rollupLines(r: RollupItem): string[] {
  const start = new Date(r.windowStart).toISOString();
  return Object.entries(r.metrics).map(([name, m]) =>
    [
      start.padEnd(24),
      r.window.padEnd(6),
      name.padEnd(12),
      String(m.count).padStart(7),
      fmt(m.min).padStart(10),
      fmt(m.max).padStart(10),
      fmt(m.mean).padStart(12),
      fmt(m.last).padStart(10),
    ].join('  '),
  );
}

function header(kind: QueryKind): string {
  if (kind === 'rollups')
    return [
      'WINDOW START'.padEnd(24),
      'SIZE'.padEnd(6),
      'METRIC'.padEnd(12),
      'COUNT'.padStart(7),
      'MIN'.padStart(10),
      'MAX'.padStart(10),
      'MEAN'.padStart(12),
      'LAST'.padStart(10),
    ].join('  ');
  return `${'TIME'.padEnd(24)}  ${'ID'.padEnd(16)}  ${'METRICS'.padEnd(24)}  TAGS`;
}

export async function queryCommand(argv: readonly string[]): Promise<number> {
  const options = Object.fromEntries(PARAMS.map((name) => [name, { type: 'string' as const }]));
  const { values, positionals } = parseCommand(argv, { ...options, json: { type: 'boolean' } });
  const sub = positionals[0];
  const kind = sub === undefined ? undefined : KINDS[sub];
  if (kind === undefined || positionals.length > 1) throw new UsageError(`usage: ${QUERY_USAGE}`);
  const raw: Record<string, string> = {};
  for (const name of PARAMS) {
    const v = stringFlag(values, name);
    if (v !== undefined) raw[name] = v;
  }
  const json = values['json'] === true;
  const cfg = configOf(values);
  const tables = tablesOf(cfg);
  const hbase = createHBaseClient(cfg, 'tool');
  try {
    const { keyspace, registry } = await openKeyspace(cfg, tables, hbase);
    const queries = createQueries({ cfg, hbase, keyspace, tables, entryFor: (id) => registry.fetch(id) });
    let spec;
    try {
      spec = queries.parse(kind, raw, (p) => `--${p}`);
    } catch (err) {
      if (err instanceof QueryError) throw new UsageError(err.message, { cause: err });
      throw err;
    }
    const page = queries.run(spec);
    let n = 0;
    let end: PageEnd;
    for (;;) {
      const r: IteratorResult<QueryItem, PageEnd> = await page.next().catch((err: unknown) => {
        throw isHBaseError(err, 'HBASE_TABLE_NOT_FOUND') || isHBaseError(err, 'HBASE_NOT_FOUND')
          ? rephrase(`${err.message} (do the tables exist? see \`tsingest tables check\`)`, err)
          : err;
      });
      if (!json && n === 0) out(header(kind));
      if (r.done === true) {
        end = r.value;
        break;
      }
      n++;
      if (json) out(JSON.stringify(r.value));
      else if ('windowStart' in r.value) for (const line of rollupLines(r.value)) out(line);
      else out(eventLine(r.value));
    }
    if (json) {
      out(JSON.stringify({ next: end.next, limit: spec.limit, ...(end.dangling === undefined ? {} : { dangling: end.dangling }) }));
      return 0;
    }
    out(
      `${n} ${kind === 'rollups' ? 'window' : 'event'}${n === 1 ? '' : 's'} (limit ${spec.limit})${end.dangling === undefined ? '' : `; ${end.dangling} dangling index entr${end.dangling === 1 ? 'y' : 'ies'} skipped`}`,
    );
    out(end.next === null ? 'no more results' : `next page: --cursor ${end.next}`);
    return 0;
  } finally {
    await hbase.close();
  }
}
