// The port a query reads stored series through: what execute.ts and coalesce-reads.ts need of HBase,
// declared here by them (series-store.ts SeriesStore fits; the window and tail caches wrap one).
import type { PointBudget, RawAsk, TaggedPoints } from '../series-data/points.ts';
import type { WindowsAsk, WindowsRead } from '../series-data/windows.ts';

/** What a query needs of HBase: each read takes several metrics. */
export interface SeriesReads {
  /** every id's points of each metric, by metric, id and tag set */
  rawPointsOf(ask: RawAsk, budget: PointBudget, concurrency?: number): Promise<Map<string, Map<string, Map<string, TaggedPoints>>>>;
  /** stored windows (summaries with blocks or packs) of each metric by id, and the pending markers by id, in one scan group */
  windowsOf(ask: WindowsAsk, budget: PointBudget, concurrency?: number): Promise<WindowsRead>;
}
