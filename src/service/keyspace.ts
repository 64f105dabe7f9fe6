// The one place a Keyspace, the Tables and the spread registry are built from the configuration (the
// service, every CLI command, the benchmarks and the tests call these): B, the data key format and the
// index salt mode, over the registry's view when the caller has one; each table's name and families.
import { Keyspace, NO_SPREAD, Tables, type SpreadLookup } from '../keys/index.ts';
import type { Config } from '../runtime/config.ts';
import { SpreadRegistry, type SpreadObserver } from '../spread/registry.ts';
import { RegistryStore, type RegistryPort } from '../spread/store.ts';
import { spreadTiming } from '../spread/timing.ts';

/** The largest K an id may get: keys.spread.maxK, or B. */
export function spreadMaxK(cfg: Config): number {
  return Math.min(cfg.keys.spread.maxK ?? cfg.keys.saltBuckets, cfg.keys.saltBuckets);
}

export function keyspaceOf(cfg: Config, spread: SpreadLookup = NO_SPREAD): Keyspace {
  return new Keyspace({ buckets: cfg.keys.saltBuckets, format: cfg.keys.format, indexSaltMode: cfg.index.saltMode }, spread);
}

/** The tables' names and families; the point blocks' family only when the rollup job writes blocks. */
export function tablesOf(cfg: Config): Tables {
  const { data, index, rollup, meta } = cfg.tables;
  return new Tables({
    data,
    index,
    rollup: { name: rollup.name, family: rollup.family, pointsFamily: cfg.rollup.pointBlocks.enabled ? rollup.pointsFamily : null },
    meta,
    rollups: cfg.rollup.enabled,
  });
}

/** The spread registry's rows in the meta table. */
export function registryStore(cfg: Config, tables: Tables, port: RegistryPort): RegistryStore {
  return new RegistryStore(port, { table: tables.meta.name, family: tables.meta.family, buckets: cfg.keys.saltBuckets });
}

export function spreadRegistryOf(
  cfg: Config,
  tables: Tables,
  port: RegistryPort,
  hooks: { observer?: SpreadObserver; onRefreshError?: (err: unknown) => void } = {},
): SpreadRegistry {
  return new SpreadRegistry({
    store: registryStore(cfg, tables, port),
    timing: spreadTiming(cfg.keys.spread),
    buckets: cfg.keys.saltBuckets,
    maxK: spreadMaxK(cfg),
    observer: hooks.observer,
    onRefreshError: hooks.onRefreshError,
  });
}

/** For a command-line tool: the registry read once, and the keyspace over it. */
export async function openKeyspace(cfg: Config, tables: Tables, port: RegistryPort): Promise<{ keyspace: Keyspace; registry: SpreadRegistry }> {
  const registry = spreadRegistryOf(cfg, tables, port);
  await registry.refresh();
  return { keyspace: keyspaceOf(cfg, registry), registry };
}
