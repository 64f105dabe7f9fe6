// The part of the configuration the rollup job and the backfill use, resolved once.
import type { Keyspace, TableRef, Tables } from '../keys/index.ts';
import { pointsTtlSeconds, windowRetention, type Config } from '../runtime/config.ts';
import type { SourceRetention } from './expired-source.ts';
import type { BlockSettings } from './window-content.ts';
import { parseWindows, type WindowSize } from './windows.ts';

export interface RollupSettings {
  /** finest first, nested */
  readonly windows: readonly WindowSize[];
  readonly graceMs: number;
  /** the job leaves a finest-window marker younger than this (by its timestamp) for a later run */
  readonly markerSettleMs: number;
  /** windows recomputed at once (also: bucket scans at once) */
  readonly concurrency: number;
  /** the key layout and the spread registry's view */
  readonly keyspace: Keyspace;
  readonly dataTable: string;
  readonly rollupTable: string;
  readonly rollupFamily: string;
  /** the meta table: its generations row (generations.ts) is bumped after every put of windows */
  readonly meta: TableRef;
  /** rows per scan page (markers, backfill) */
  readonly pageRows: number;
  /** point blocks (rollup.pointBlocks); null when off */
  readonly blocks: BlockSettings | null;
  /** how long raw rows and blocks are kept (expired-source.ts); absent: for ever */
  readonly retention?: SourceRetention | undefined;
}

/** The point blocks of the configuration, or null when they are off (the rollup table has no points family). */
export function blockSettings(cfg: Pick<Config, 'rollup' | 'tables'>, tables: Tables): BlockSettings | null {
  const family = tables.rollup.pointsFamily;
  if (family === null) return null;
  const { maxPoints, everySize, summaryInBlock } = cfg.rollup.pointBlocks;
  return { family, maxPoints, everySize, standsForSummary: summaryInBlock ? blocksOutlive(cfg) : new Set<number>() };
}

/**
 * The window sizes (s) whose summaries the blocks are kept at least as long as: the blocks' TTL is
 * forever, or at least the size's (a block standing for a summary takes it along when it goes).
 */
export function blocksOutlive(cfg: Pick<Config, 'rollup' | 'tables'>): Set<number> {
  const blocksTtl = pointsTtlSeconds(cfg);
  const out = new Set<number>();
  for (const w of windowRetention(cfg)) if (blocksTtl === null || (w.ttlSeconds !== null && blocksTtl >= w.ttlSeconds)) out.add(w.seconds);
  return out;
}

export function rollupSettings(cfg: Config, keyspace: Keyspace, tables: Tables, pageRows = 500): RollupSettings {
  return {
    windows: parseWindows(cfg.rollup.windows),
    graceMs: cfg.rollup.graceMs,
    markerSettleMs: cfg.rollup.markerSettleMs,
    concurrency: cfg.rollup.concurrency,
    keyspace,
    dataTable: tables.data.name,
    rollupTable: tables.rollup.name,
    rollupFamily: tables.rollup.family,
    meta: tables.meta,
    pageRows,
    blocks: blockSettings(cfg, tables),
    retention: sourceRetention(cfg),
  };
}

/** How long the job's sources are kept: the data table's TTL and the point blocks' (ms; null: for ever). */
export function sourceRetention(cfg: Pick<Config, 'tables'>): SourceRetention {
  const ms = (s: number | null): number | null => (s === null ? null : s * 1000);
  return { rawTtlMs: ms(cfg.tables.data.ttlSeconds), blocksTtlMs: ms(pointsTtlSeconds(cfg)) };
}
