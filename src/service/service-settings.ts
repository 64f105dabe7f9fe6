// Config → the settings of each part. Pure mapping, no I/O: one place to read when asking "which
// config key drives this?".
import type { ConsumerConfig } from 'kafkajs';
import { eventLimitsFor, resolveFieldMapping } from '../events/index.ts';
import type { PlanSettings } from '../ingest/batch-plan.ts';
import { CatalogMarks } from '../catalog/marks.ts';
import { RollupMarks } from '../ingest/rollup-marks.ts';
import { Touches } from '../ingest/touches.ts';
import { parseWindows } from '../rollup/windows.ts';
import type { Keyspace, Tables } from '../keys/index.ts';
import type { Config } from '../runtime/config.ts';
import { ServiceError } from '../errors.ts';

/** How often consumer lag is measured against the broker (and the broker's presence checked). */
export const LAG_POLL_MS = 5000;
/** Consecutive failed lag polls after which the broker counts as unreachable (not ready). */
export const BROKER_POLL_FAILURES = 2;

/** The service refuses to start (or its start was aborted by a signal). */
export class StartupError extends ServiceError {
  override readonly name = 'StartupError';

  constructor(message: string, cause?: unknown) {
    super({ code: 'STARTUP', message, cause });
  }
}

/** Parse and key settings per flush unit (limits re-read the clock when events.maxFutureSkewMs is set). */
export function planSettings(cfg: Config, keyspace: Keyspace, tables: Tables): () => PlanSettings {
  const base = {
    mapping: resolveFieldMapping(cfg.events.mapping),
    keyspace,
    dataFamily: tables.data.family,
    indexFamily: tables.index.family,
    indexTags: cfg.index.tags,
  };
  const limits = eventLimitsFor(cfg.events);
  return () => ({ ...base, limits: limits() });
}

export function rollupMarks(cfg: Config, keyspace: Keyspace, tables: Tables): RollupMarks {
  const finest = parseWindows(cfg.rollup.windows)[0];
  if (finest === undefined) throw new StartupError('rollup.windows is empty');
  return new RollupMarks({
    window: finest,
    graceMs: cfg.rollup.graceMs,
    settleMs: cfg.rollup.markerSettleMs,
    keyspace,
    family: tables.rollup.family,
    cacheSize: cfg.rollup.markerCacheSize,
    lateMs: cfg.series.tailCache.lateMs,
    lateHorizonMs: cfg.series.tailCache.horizonMs,
  });
}

/** The touch rows ingest writes for the series API's tail cache (off with it: series.tailCache.horizonMs 0). */
export function touches(cfg: Config, keyspace: Keyspace, tables: Tables): Touches | undefined {
  const { horizonMs } = cfg.series.tailCache;
  if (horizonMs === 0) return undefined;
  return new Touches({ keyspace, family: tables.rollup.family, horizonMs, cacheSize: cfg.rollup.markerCacheSize });
}

/** The series catalog's write planner (catalog.enabled), writing to the meta table's family. */
export function catalogMarks(cfg: Config, tables: Tables): CatalogMarks | undefined {
  return cfg.catalog.enabled ? new CatalogMarks({ family: tables.meta.family, cacheSize: cfg.catalog.cacheSize }) : undefined;
}

export function consumerConfig(cfg: Config): ConsumerConfig {
  return {
    groupId: cfg.kafka.groupId,
    sessionTimeout: cfg.kafka.sessionTimeoutMs,
    heartbeatInterval: cfg.kafka.heartbeatIntervalMs,
    maxBytesPerPartition: cfg.kafka.maxBytesPerPartition,
    maxWaitTimeInMs: cfg.kafka.maxWaitTimeMs,
  };
}
