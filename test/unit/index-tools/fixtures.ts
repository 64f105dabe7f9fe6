/** Shared helpers of the index tool unit tests (not a test file itself). */
import { DEFAULT_EVENT_LIMITS, DEFAULT_FIELD_MAPPING } from '../../../src/events/index.ts';
import { planBatch, type PlanSettings } from '../../../src/ingest/batch-plan.ts';
import type { Checkpoint } from '../../../src/index-tools/index-checkpoint.ts';
import { settingsOf, type IndexToolSettings } from '../../../src/index-tools/index-settings.ts';
import { encodeIndexKey } from '../../../src/keys/index.ts';
import { loadConfig, type Config } from '../../../src/runtime/config.ts';
import { keyspaceOf, tablesOf } from '../../../src/service/keyspace.ts';
import type { CheckpointStore } from '../../../src/toolkit/checkpoint-store.ts';
import type { FakeHBase } from '../../support/fake-hbase.ts';

export interface Ev {
  readonly id: string;
  readonly ts: number;
  readonly metric: string;
  readonly value: number;
  readonly tags?: Readonly<Record<string, string>>;
}

export const BASE_TS = 1_732_262_400_000;

export function configOf(sets: readonly string[] = []): Config {
  return loadConfig({ env: {}, sets: ['keys.saltBuckets=4', 'tables.data.name=d', 'tables.index.name=i', 'index.tags=["site","rack"]', ...sets] });
}

export function toolSettings(cfg: Config, input: { tag?: string; from?: number; to?: number } = {}): IndexToolSettings {
  return settingsOf(cfg, keyspaceOf(cfg), tablesOf(cfg), input);
}

/** `n` events; even ones carry site + rack; every 7th (id, ts) also gets a second metric. */
export function makeEvents(n: number): Ev[] {
  const out: Ev[] = [];
  for (let i = 0; i < n; i++) {
    const e: Ev = { id: `dev-${i % 11}`, ts: BASE_TS + i * 1000, metric: 'temp', value: i };
    const tagged = i % 2 === 0 ? { ...e, tags: { site: `s${i % 3}`, rack: `r${i % 4}` } } : e;
    out.push(tagged);
    if (i % 7 === 0) out.push({ ...tagged, metric: 'hum', value: -i });
  }
  return out;
}

/** Writes events exactly as the ingest does (planBatch), indexing `indexTags`. */
export function ingest(store: FakeHBase, cfg: Config, events: readonly Ev[], indexTags: readonly string[]): void {
  const settings: PlanSettings = {
    mapping: DEFAULT_FIELD_MAPPING,
    limits: DEFAULT_EVENT_LIMITS,
    keyspace: keyspaceOf(cfg),
    dataFamily: cfg.tables.data.family,
    indexFamily: cfg.tables.index.family,
    indexTags,
  };
  const records = events.map((e, i) => ({ offset: String(i), key: null, value: Buffer.from(JSON.stringify(e)), timestamp: '0' }));
  const plan = planBatch(records, settings);
  if (plan.rejects.length > 0) throw new Error(`fixture events rejected: ${plan.rejects.map((r) => r.detail).join('; ')}`);
  for (const p of plan.events) {
    store.seed(cfg.tables.data.name, p.data.row.key, p.data.row.cells);
    for (const r of p.index) store.seed(cfg.tables.index.name, r.row.key, r.row.cells);
  }
}

/** The index the events call for, computed from the events alone: key hex → sorted metrics. */
export function expectedIndex(cfg: Config, events: readonly Ev[], tags: readonly string[]): Map<string, string[]> {
  const rows = new Map<string, Set<string>>();
  for (const e of events) {
    for (const tag of tags) {
      const value = e.tags?.[tag];
      if (value === undefined) continue;
      const key = encodeIndexKey({ indexName: tag, value, ts: e.ts, id: e.id }, cfg.keys.saltBuckets, cfg.index.saltMode).toString('hex');
      const set = rows.get(key) ?? new Set<string>();
      set.add(e.metric);
      rows.set(key, set);
    }
  }
  return new Map([...rows.entries()].map(([k, v]) => [k, [...v].sort()] as [string, string[]]).sort(([a], [b]) => a.localeCompare(b)));
}

export function distinctRows(events: readonly Ev[]): number {
  return new Set(events.map((e) => `${e.id}\u0000${e.ts}`)).size;
}

export class MemoryCheckpoints implements CheckpointStore<Checkpoint> {
  readonly where = 'memory';
  saved: Checkpoint | null = null;
  saves = 0;

  load(): Promise<Checkpoint | undefined> {
    return Promise.resolve(this.saved ?? undefined);
  }

  save(c: Checkpoint): Promise<void> {
    this.saved = c;
    this.saves++;
    return Promise.resolve();
  }
}
