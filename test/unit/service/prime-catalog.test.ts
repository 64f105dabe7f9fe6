// primeCatalog (src/service/ingest-side.ts): an ingest process starts with the catalog's series
// remembered as written, so it writes none of them again; a failed read keeps what it took.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CatalogMarks } from '../../../src/catalog/marks.ts';
import { canonicalTags, type Series } from '../../../src/catalog/rows.ts';
import { createLogger } from '../../../src/runtime/logger.ts';
import { primeCatalog } from '../../../src/service/ingest-side.ts';

const log = createLogger({ level: 'silent' });
const series = (n: number): Series[] => Array.from({ length: n }, (_, i) => ({ metric: 'temp', id: `dev-${i}`, tags: { site: `s${i % 3}` } }));

/** A catalog of `list` (each row's cell its canonical tags JSON, as the writer puts it); `fail`: the scan fails after that many. */
function store(list: readonly Series[], seen: number[], fail?: number) {
  return {
    async *first(limit: number) {
      seen.push(limit);
      await Promise.resolve();
      for (const [i, s] of list.slice(0, limit).entries()) {
        if (i === fail) throw new Error('gateway down');
        yield { series: s, cell: canonicalTags(s.tags) };
      }
      if (fail !== undefined) throw new Error('gateway down');
    },
  };
}

void test('the series read from the catalog are not written again; the read asks at most the cache size', async () => {
  const marks = new CatalogMarks({ family: 'd', cacheSize: 100 });
  const limits: number[] = [];
  assert.equal(await primeCatalog(marks, store(series(50), limits), { log, max: 100 }), 50);
  assert.deepEqual(limits, [100]);
  const touches = series(60).map((s) => ({ id: s.id, metric: s.metric, tags: s.tags }));
  assert.deepEqual(
    marks.rowsFor(touches).map((r) => r.id),
    series(60)
      .slice(50)
      .map((s) => s.id),
    'only the ten series the catalog did not hold',
  );
});

void test('a catalog that cannot be read: nothing remembered, every series written when met', async () => {
  const marks = new CatalogMarks({ family: 'd', cacheSize: 100 });
  assert.equal(await primeCatalog(marks, store(series(5), [], 0), { log, max: 100 }), 0);
  assert.equal(marks.rowsFor(series(5).map((s) => ({ id: s.id, metric: s.metric, tags: s.tags }))).length, 5);
});

void test('a read that fails part-way keeps what it took', async () => {
  const marks = new CatalogMarks({ family: 'd', cacheSize: 100 });
  assert.equal(await primeCatalog(marks, store(series(5), [], 3), { log, max: 100 }), 3);
  assert.equal(marks.rowsFor(series(5).map((s) => ({ id: s.id, metric: s.metric, tags: s.tags }))).length, 2);
});
