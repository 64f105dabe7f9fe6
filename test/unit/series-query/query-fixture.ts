// One /api/query body run through the series API's executeQuery as the service runs it (limits of the
// unit tests, a fixed clock), over the reads and tier given.
import type { SeriesIndex } from '../../../src/catalog/series-index.ts';
import { executeQuery, type ExecuteDeps, type SubQueryAnswer } from '../../../src/series-query/execute.ts';
import { parseQueryBody } from '../../../src/series-language/parse-query.ts';

export interface QueryWorld {
  readonly catalog: SeriesIndex;
  readonly reads: ExecuteDeps['reads'];
  readonly tier: ExecuteDeps['tier'];
  readonly now: number;
  readonly memo?: ExecuteDeps['memo'];
}

export function runQuery(body: Record<string, unknown>, w: QueryWorld): Promise<SubQueryAnswer[]> {
  const q = parseQueryBody(body, new URLSearchParams(), w.now);
  return executeQuery(q, {
    catalog: w.catalog,
    reads: w.reads,
    ...(w.memo === undefined ? {} : { memo: w.memo }),
    tier: w.tier,
    idTagKey: 'id',
    limits: { maxSeries: 100, maxPoints: 1_000_000, concurrency: 3 },
    now: () => w.now,
    signal: new AbortController().signal,
    integerValues: false,
  });
}
