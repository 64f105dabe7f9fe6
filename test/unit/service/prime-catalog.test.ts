// primeCatalog (src/service/ingest-side.ts): an ingest process starts with the catalog's series
// remembered as written, so it writes none of them again; a failed read leaves the cache empty.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CatalogMarks } from '../../../src/catalog/marks.ts';
import type { Series } from '../../../src/catalog/rows.ts';
import { createLogger } from '../../../src/runtime/logger.ts';
import { primeCatalog } from '../../../src/service/ingest-side.ts';

const log = createLogger({ level: 'silent' });
const series = (n: number): Series[] => Array.from({ length: n }, (_, i) => ({ metric: 'temp', id: `dev-${i}`, tags: { site: `s${i % 3}` } }));

void test('the series read from the catalog are not written again; the read asks at most the cache size', async () => {
  const marks = new CatalogMarks({ family: 'd', cacheSize: 100 });
  const limits: number[] = [];
  const store = {
    first: (limit: number) => {
      limits.push(limit);
      return Promise.resolve({ series: series(50).slice(0, limit), skipped: 0 });
    },
  };
  assert.equal(await primeCatalog(marks, store, { log, max: 100 }), 50);
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
  const store = { first: () => Promise.reject(new Error('gateway down')) };
  assert.equal(await primeCatalog(marks, store, { log, max: 100 }), 0);
  assert.equal(marks.rowsFor(series(5).map((s) => ({ id: s.id, metric: s.metric, tags: s.tags }))).length, 5);
});
