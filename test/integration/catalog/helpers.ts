// Shared by the catalog integration tests: events of several metrics, ids and tag sets (each series
// several times), the series they make, and the catalog as the meta table holds it.
import { CatalogStore } from '../../../src/catalog/store.ts';
import { canonicalTags } from '../../../src/catalog/rows.ts';
import { retryingRest, type Harness, type TestEvent } from '../../support/service-harness.ts';

const BASE = Date.UTC(2026, 0, 5, 12, 0, 0);

/** n events: 4 metrics × 9 ids, tags from a few sites and racks (some events without tags). */
export function catalogEvents(n: number, base = BASE): TestEvent[] {
  return Array.from({ length: n }, (_, i) => {
    const id = i % 11 === 0 ? `设备-${i % 3}` : `dev-${i % 9}`;
    const e = { id, ts: base + i * 1000, metric: ['cpu', 'mem', 'disk.io', 'temp'][i % 4] as string, value: i / 4 };
    if (i % 7 === 0) return e; // no tags
    const tags: Record<string, string> = { site: `s${i % 3}` };
    if (i % 5 === 0) tags['rack'] = `r${i % 2}`;
    if (i % 13 === 0) tags['note'] = 'a "quoted" | value';
    return { ...e, tags };
  });
}

/**
 * The series the events make, as `metric|id|tags JSON` lines. Tags belong to the data row (id, ts):
 * a test's events have distinct (id, ts), so every event's series is its own metric, id and tags.
 */
export function seriesOfEvents(events: readonly TestEvent[]): string[] {
  return [...new Set(events.map((e) => `${e.metric}|${e.id}|${canonicalTags(e.tags ?? {}).toString('utf8')}`))].sort();
}

/** The catalog in the harness's meta table, as `metric|id|tags JSON` lines. */
export async function catalogLines(h: Harness): Promise<string[]> {
  const store = new CatalogStore(h.rest, { table: h.names.meta });
  const { series, skipped } = await retryingRest('read the catalog', () => store.read());
  if (skipped > 0) throw new Error(`${skipped} catalog rows did not decode`);
  return series.map((s) => `${s.metric}|${s.id}|${canonicalTags(s.tags).toString('utf8')}`).sort();
}
