/**
 * Metrics of spread ids (docs/HOT-IDS.md): the spread registry as this instance sees it, and what this
 * instance changed in it. Created on the service's prom-client `Registry`; names are fixed like METRIC_NAMES. The K
 * of each current hot id is a label of tsingest_hot_id_info (hot-id-metrics.ts).
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { SpreadEpoch } from '../keys/index.ts';

export const SPREAD_METRIC_NAMES = {
  ids: 'tsingest_spread_ids',
  promotions: 'tsingest_spread_promotions_total',
  fences: 'tsingest_spread_fences_total',
  refreshes: 'tsingest_spread_registry_refreshes_total',
  age: 'tsingest_spread_registry_age_seconds',
  decisions: 'tsingest_spread_decision_runs_total',
} as const;

export const PROMOTION_ORIGINS = ['auto', 'manual'] as const;

export interface SpreadMetrics {
  /** ids with at least one epoch in this instance's registry snapshot */
  readonly ids: Gauge;
  readonly promotions: Counter<'origin'>;
  readonly fences: Counter;
  readonly refreshes: Counter<'outcome'>;
  readonly decisions: Counter<'outcome'>;
}

/** `ageSeconds` is read at every scrape (the snapshot's age). */
export function createSpreadMetrics(registry: Registry, ageSeconds: () => number): SpreadMetrics {
  const registers = [registry];
  const m: SpreadMetrics = {
    ids: new Gauge({ name: SPREAD_METRIC_NAMES.ids, help: "Spread ids (ids with at least one epoch) in this instance's registry snapshot", registers }),
    promotions: new Counter({
      name: SPREAD_METRIC_NAMES.promotions,
      help: 'Epochs this instance added to the spread registry, by origin (auto: its promoter; manual: `tsingest spread set` counts in its own process)',
      labelNames: ['origin'] as const,
      registers,
    }),
    fences: new Counter({ name: SPREAD_METRIC_NAMES.fences, help: 'Fences this instance raised in the spread registry for far-future events', registers }),
    refreshes: new Counter({
      name: SPREAD_METRIC_NAMES.refreshes,
      help: 'Spread registry refreshes by outcome (ok | error)',
      labelNames: ['outcome'] as const,
      registers,
    }),
    decisions: new Counter({
      name: SPREAD_METRIC_NAMES.decisions,
      help: 'Automatic promotion rounds by outcome (ok | error | skipped: too few events in the window)',
      labelNames: ['outcome'] as const,
      registers,
    }),
  };
  new Gauge({
    name: SPREAD_METRIC_NAMES.age,
    help: "Seconds since this instance's spread registry snapshot was read (writes wait when it passes 3 × keys.spread.refreshMs)",
    registers,
    collect() {
      const s = ageSeconds();
      this.set(Number.isFinite(s) ? s : -1);
    },
  });
  for (const origin of PROMOTION_ORIGINS) m.promotions.inc({ origin }, 0);
  for (const outcome of ['ok', 'error']) m.refreshes.inc({ outcome }, 0);
  for (const outcome of ['ok', 'error', 'skipped']) m.decisions.inc({ outcome }, 0);
  m.fences.inc(0);
  return m;
}

/** The spread registry's observer over these metrics. */
export function spreadObserver(m: SpreadMetrics): {
  refreshed(ok: boolean, spreadIds: number): void;
  promoted(id: string, epoch: SpreadEpoch, origin: 'auto' | 'manual'): void;
  fenced(id: string, fence: number): void;
} {
  return {
    refreshed(ok, spreadIds) {
      m.refreshes.inc({ outcome: ok ? 'ok' : 'error' });
      m.ids.set(spreadIds);
    },
    promoted(_id, _epoch, origin) {
      m.promotions.inc({ origin });
    },
    fenced() {
      m.fences.inc();
    },
  };
}

/** Removes these metrics from the prom-client `Registry` (a second service on the same one adds its own). */
export function removeSpreadMetrics(registry: Registry): void {
  for (const name of Object.values(SPREAD_METRIC_NAMES)) registry.removeSingleMetric(name);
}
