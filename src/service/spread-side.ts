// The service's spread parts (docs/HOT-IDS.md): the registry, read once before anything consumes (the
// Keyspace of every part looks ids up in it) and refreshed every keys.spread.refreshMs; its metrics;
// and, with keys.spread.auto, the promoter that publishes this instance's write shares and promotes
// the ids hot over all instances.
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { OutageWatch } from '../ingest/outage-watch.ts';
import type { HotIds } from '../load/hot-ids.ts';
import { createSpreadMetrics, removeSpreadMetrics, spreadObserver, type SpreadMetrics } from '../metrics/spread-metrics.ts';
import type { Config } from '../runtime/config.ts';
import type { PromotionPolicy } from '../spread/load.ts';
import { Promoter } from '../spread/promoter.ts';
import type { SpreadRegistry } from '../spread/registry.ts';
import { registryStore, spreadMaxK, spreadRegistryOf } from './keyspace.ts';
import type { ServiceBase } from './parts.ts';

export function promotionPolicy(cfg: Config): PromotionPolicy {
  const s = cfg.keys.spread;
  return { minShare: s.minShare, minEvents: s.minEvents, kFactor: s.kFactor, buckets: cfg.keys.saltBuckets, maxK: spreadMaxK(cfg) };
}

/**
 * The registry's refresh failures are told to the outage watch too (`watch`): while the ingest path
 * waits for a valid snapshot, its wait is pending there, and the failure is what the outage reports.
 */
export async function startRegistry(b: ServiceBase, watch?: Pick<OutageWatch, 'failed'>): Promise<{ registry: SpreadRegistry; metrics: SpreadMetrics }> {
  const { cfg, tables, hbase, metrics, log, closers } = b;
  let age = (): number => Number.POSITIVE_INFINITY;
  const spreadMetrics = createSpreadMetrics(metrics.registry, () => age());
  closers.add('spread metrics', () => {
    removeSpreadMetrics(metrics.registry);
  });
  let warnedAt = Number.NEGATIVE_INFINITY;
  const registry = spreadRegistryOf(cfg, tables, hbase, {
    observer: spreadObserver(spreadMetrics),
    onRefreshError: (err) => {
      watch?.failed(err);
      if (Date.now() - warnedAt < 30_000) return; // one line per 30 s while HBase is away
      warnedAt = Date.now();
      log.warn({ err }, 'spread registry refresh failed (writes wait once the snapshot is older than 3 × keys.spread.refreshMs)');
    },
  });
  age = () => registry.ageMs / 1000;
  await registry.refresh();
  registry.start();
  closers.add('spread registry', () => {
    registry.stop();
  });
  return { registry, metrics: spreadMetrics };
}

/** What the promoter promotes from: the registry it writes to, the hot ids it reads, the spread metrics it counts its rounds in. */
export interface PromoterInputs {
  readonly registry: SpreadRegistry;
  readonly hotIds: HotIds;
  readonly metrics: SpreadMetrics;
}

/** With keys.spread.auto: this instance's promoter (stopped before the registry). */
export function startPromoter(b: Omit<ServiceBase, 'metrics'>, inputs: PromoterInputs): Promoter | undefined {
  const { cfg, tables, hbase, log, closers } = b;
  const { registry, hotIds, metrics: m } = inputs;
  if (!cfg.keys.spread.auto) return undefined;
  const s = cfg.keys.spread;
  const promoter = new Promoter({
    instance: `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`,
    registry,
    store: registryStore(cfg, tables, hbase),
    hotIds,
    policy: promotionPolicy(cfg),
    everyMs: s.refreshMs,
    staleMs: 3 * s.refreshMs + s.clockToleranceMs,
    onRound: (r) => {
      m.decisions.inc({ outcome: r.outcome });
      if (r.outcome === 'error') log.warn({ err: r.error }, 'spread promotion round failed (the next one tries again)');
      for (const p of r.promoted) {
        const epoch = registry.entryOf(p.id)?.epochs.at(-1);
        log.info({ id: p.id, k: p.k, share: p.share, since: epoch?.since, instances: r.instances }, 'spread id promoted');
      }
    },
  });
  promoter.start();
  closers.add('spread promoter', () => promoter.stop());
  return promoter;
}
