// Events written, marked and summarised by the rollup job on a fake HBase, with the catalog of their
// series and the series store over them: the world a series-query test asks.
import assert from 'node:assert/strict';
import { NO_SPREAD } from '../../../src/keys/index.ts';
import { fixedSpread } from '../../../src/series-store/index.ts';
import { SeriesIndex } from '../../../src/catalog/series-index.ts';
import { RollupJob } from '../../../src/rollup/job.ts';
import { SeriesStore } from '../../../src/series-store/series-store.ts';
import type { RollupSettings } from '../../../src/rollup/rollup-settings.ts';
import type { BlockSettings } from '../../../src/rollup/window-content.ts';
import { FakeHBase } from '../../support/fake-hbase.ts';
import type { Ev } from '../rollup/brute.ts';
import { markEvents, readMetrics, settings, silentLog, writeEvents } from '../rollup/job-fixture.ts';

export interface RollupWorld {
  readonly store: FakeHBase;
  readonly s: RollupSettings;
  readonly catalog: SeriesIndex;
}

/** `evs` in the data table and summarised at `now` (windows 1h and 1d) with `blocks`. */
export async function summarisedWorld(evs: readonly Ev[], blocks: BlockSettings, now: number): Promise<RollupWorld> {
  const s = settings(['1h', '1d'], { blocks });
  const store = new FakeHBase();
  await writeEvents(store, s, evs);
  await markEvents(store, s, evs);
  const report = await new RollupJob({ store, settings: s, metrics: readMetrics(s).metrics, log: silentLog, now: () => now }).run();
  assert.equal(report.ok, true, JSON.stringify(report));
  const catalog = new SeriesIndex({ idTagKey: 'id' });
  for (const e of evs) catalog.add({ metric: e.metric, id: e.id, tags: {} });
  return { store, s, catalog };
}

/** The series store over the world's tables (blocks read from `blockFamily`; null: none). */
export function worldReads(w: RollupWorld, blockFamily: string | null): SeriesStore {
  return new SeriesStore(w.store, {
    keyspace: w.s.keyspace,
    data: { name: w.s.dataTable, family: 'd' },
    rollup: { name: w.s.rollupTable, family: w.s.rollupFamily },
    meta: w.s.meta,
    spread: fixedSpread(NO_SPREAD),
    deadlineMs: 10_000,
    idTagKey: 'id',
    blockFamily,
  });
}
