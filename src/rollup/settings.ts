// The part of the configuration the rollup job and the backfill use, resolved once.
import type { Keyspace } from '../keys/index.ts';
import type { Config } from '../runtime/config.ts';
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
  /** rows per scan page (markers, backfill) */
  readonly pageRows: number;
  /** point blocks (rollup.pointBlocks); null when off */
  readonly blocks: BlockSettings | null;
}

/** The point blocks of the configuration, or null when they are off. */
export function blockSettings(cfg: Pick<Config, 'rollup' | 'tables'>): BlockSettings | null {
  const b = cfg.rollup.pointBlocks;
  return b.enabled ? { family: cfg.tables.rollup.pointsFamily, maxPoints: b.maxPoints } : null;
}

export function rollupSettings(cfg: Config, keyspace: Keyspace, pageRows = 500): RollupSettings {
  return {
    windows: parseWindows(cfg.rollup.windows),
    graceMs: cfg.rollup.graceMs,
    markerSettleMs: cfg.rollup.markerSettleMs,
    concurrency: cfg.rollup.concurrency,
    keyspace,
    dataTable: cfg.tables.data.name,
    rollupTable: cfg.tables.rollup.name,
    rollupFamily: cfg.tables.rollup.family,
    pageRows,
    blocks: blockSettings(cfg),
  };
}
