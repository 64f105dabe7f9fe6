/**
 * The read side's one entry point, shared by the CLI (`tsingest query`) and the HTTP read API:
 * `parse` turns raw parameters into a query (same rules for both), `run` streams one page of it.
 *
 *   const q = createQueries({ cfg, hbase, keyspace, tables });
 *   const page = q.run(q.parse('range', { id: 'dev1', from: '2024-11-22T00:00:00Z' }));
 *   for (;;) { const r = await page.next(); if (r.done) { r.value.next; break; } use(r.value); }
 */
import type { Logger } from 'pino';
import type { Keyspace, SpreadEntry, Tables } from '../keys/index.ts';
import type { QueryMeters } from './meters.ts';
import type { Config } from '../runtime/config.ts';
import { parseWindows, type WindowSize } from '../rollup/windows.ts';
import { readByTag } from './by-tag.ts';
import { parseQuery, type ParamLabel, type RawParams } from './params.ts';
import { readLatest, readRange, readRollups } from './scan-reads.ts';
import type { ItemOf, PageEnd, PageStream, QueryKind, QuerySpec, QueryStore, ReadSettings } from './types.ts';

export interface QueryDeps {
  readonly cfg: Config;
  readonly hbase: QueryStore;
  readonly keyspace: Keyspace;
  readonly tables: Tables;
  /** an id's current spread entry for reads by id (the registry row); default: the keyspace's view */
  readonly entryFor?: ((id: string) => Promise<SpreadEntry | undefined>) | undefined;
  readonly metrics?: QueryMeters | undefined;
  readonly log?: Pick<Logger, 'warn'> | undefined;
  /** the clock (default Date.now): default `to`, the repair grace period */
  readonly now?: (() => number) | undefined;
}

export interface Queries {
  readonly settings: ReadSettings;
  /** Parses one read's parameters; throws QueryError naming the parameter. */
  parse(kind: QueryKind, raw: RawParams, label?: ParamLabel): QuerySpec;
  /** Streams one page: yields the items, returns { next, dangling? }. */
  run<S extends QuerySpec>(spec: S, options?: RunOptions): PageStream<ItemOf<S>>;
}

export interface RunOptions {
  /**
   * false: never repair dangling index rows in this read, whatever query.repairDangling says (the HTTP
   * read API passes false unless the caller has the admin scope: no writes behind an ordinary GET).
   * Default true: query.repairDangling decides (the CLI, run by an operator).
   */
  readonly repair?: boolean;
}

export function readSettingsOf(cfg: Config, keyspace: Keyspace, tables: Tables, entryFor?: (id: string) => Promise<SpreadEntry | undefined>): ReadSettings {
  const { query } = cfg;
  return {
    keyspace,
    entryFor: entryFor ?? ((id) => Promise.resolve(keyspace.entryOf(id))),
    data: tables.data,
    index: tables.index,
    rollup: tables.rollup,
    bucketConcurrency: query.bucketConcurrency,
    verifyChunk: query.verifyChunk,
    verifyScanChunk: query.verifyScanChunk,
    repairDangling: query.repairDangling,
    danglingGraceMs: query.danglingGraceMs,
  };
}

async function* timed<T>(inner: PageStream<T>, kind: QueryKind, metrics: QueryMeters | undefined): PageStream<T> {
  const stop = metrics?.queryDuration.startTimer({ kind });
  try {
    return yield* inner;
  } finally {
    stop?.();
  }
}

export function createQueries(deps: QueryDeps): Queries {
  const { cfg, hbase, metrics, log } = deps;
  const now = deps.now ?? Date.now;
  const settings = readSettingsOf(cfg, deps.keyspace, deps.tables, deps.entryFor);
  const windows: readonly WindowSize[] = parseWindows(cfg.rollup.windows);
  const stream = (spec: QuerySpec, repair: boolean): PageStream<ItemOf<QuerySpec>> => {
    switch (spec.kind) {
      case 'latest':
        return readLatest(hbase, spec, settings);
      case 'range':
        return readRange(hbase, spec, settings);
      case 'by_tag':
        return readByTag(hbase, spec, repair ? settings : { ...settings, repairDangling: false }, { now, metrics, log });
      case 'rollups':
        return readRollups(hbase, spec, settings);
    }
  };
  return {
    settings,
    parse: (kind, raw, label) =>
      parseQuery(kind, raw, {
        defaultLimit: cfg.query.defaultLimit,
        maxLimit: cfg.query.maxLimit,
        indexTags: cfg.index.tags,
        windows,
        now: now(),
        ...(label === undefined ? {} : { label }),
      }),
    run: <S extends QuerySpec>(spec: S, options: RunOptions = {}) => timed(stream(spec, options.repair ?? true), spec.kind, metrics) as PageStream<ItemOf<S>>,
  };
}

/** Reads a whole page into memory (tests and small callers; the API and CLI stream instead). */
export async function collectPage<T>(page: PageStream<T>): Promise<{ items: T[]; end: PageEnd }> {
  const items: T[] = [];
  for (;;) {
    const r = await page.next();
    if (r.done === true) return { items, end: r.value };
    items.push(r.value);
  }
}
