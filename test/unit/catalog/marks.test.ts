// CatalogMarks: one row per distinct series of a unit, nothing for series already written, one row for
// a new tag value, a rewrite after eviction, and nothing remembered before the acknowledgement.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canonicalTags, decodeSeriesRow, JOURNAL_KEEP_MS, seriesRow } from '../../../src/catalog/rows.ts';
import { catalogCacheKey, CatalogMarks, type CatalogRow, type SeriesTouch } from '../../../src/catalog/marks.ts';

const marks = (cacheSize = 1000): CatalogMarks => new CatalogMarks({ family: 'd', cacheSize, now: () => 1234 });

function unit(n: number, site = 's'): SeriesTouch[] {
  // n series (5 ids × metrics a/b …), each touched three times
  const out: SeriesTouch[] = [];
  for (let rep = 0; rep < 3; rep++)
    for (let i = 0; i < n; i++) out.push({ id: `dev-${i % 5}`, metric: `m${Math.floor(i / 5)}`, tags: { site, rack: `r${i % 5}` } });
  return out;
}

const seriesOf = (rows: readonly CatalogRow[]) => rows.map((r) => decodeSeriesRow(r.row.key, r.row.cells[0]?.value ?? Buffer.alloc(0)));

void test('first unit: one row per distinct series, the rows of the catalog codec, cell t in the meta family', () => {
  const m = marks();
  const rows = m.rowsFor(unit(20));
  assert.equal(rows.length, 20);
  for (const r of rows) {
    assert.equal(r.row.cells.length, 1);
    const c = r.row.cells[0];
    assert.ok(c !== undefined);
    assert.equal(c.family, 'd');
    assert.equal(c.qualifier.toString(), 't');
    assert.equal(c.timestamp, 1234);
  }
  const first = seriesOf(rows)[0];
  assert.deepEqual(first, { metric: 'm0', id: 'dev-0', tags: { rack: 'r0', site: 's' } });
  assert.deepEqual(rows[0]?.row.key, seriesRow({ metric: 'm0', id: 'dev-0', tags: { site: 's', rack: 'r0' } }).key);
});

void test('repeat units write nothing once acknowledged; a new tag value writes one row', () => {
  const m = marks();
  const rows = m.rowsFor(unit(20));
  assert.equal(m.rowsFor(unit(20)).length, 20, 'not acknowledged yet: still to write');
  m.acknowledged(rows);
  assert.equal(m.cached, 20);
  assert.equal(m.rowsFor(unit(20)).length, 0);
  assert.equal(m.rowsFor(unit(20)).length, 0);
  const changed = m.rowsFor([...unit(20), { id: 'dev-0', metric: 'm0', tags: { site: 's', rack: 'r9' } }]);
  assert.deepEqual(seriesOf(changed), [{ metric: 'm0', id: 'dev-0', tags: { rack: 'r9', site: 's' } }]);
});

void test("the parser's tags cell stands for the tags; no tags = {}", () => {
  const m = marks();
  const a = m.rowsFor([{ id: 'x', metric: 'm', tags: { b: '2', a: '1' } }]);
  const b = m.rowsFor([{ id: 'x', metric: 'm', tags: { a: '1', b: '2' }, tagsCell: Buffer.from('{"a":"1","b":"2"}') }]);
  assert.deepEqual(a[0]?.row.key, b[0]?.row.key);
  m.acknowledged(a);
  assert.equal(m.rowsFor([{ id: 'x', metric: 'm', tags: { b: '2', a: '1' } }]).length, 0, 'both spellings are one cache entry');
  const none = m.rowsFor([{ id: 'x', metric: 'm', tags: {} }]);
  assert.equal(none[0]?.row.cells[0]?.value.toString(), '{}');
});

void test('eviction: the least recently seen series is forgotten and written again once', () => {
  const m = marks(3);
  const touch = (id: string): SeriesTouch => ({ id, metric: 'm', tags: {} });
  m.acknowledged(m.rowsFor(['a', 'b', 'c'].map(touch)));
  assert.equal(m.cached, 3);
  assert.equal(m.rowsFor([touch('a')]).length, 0, 'a is known (and now the most recent)');
  const d = m.rowsFor([touch('d')]);
  m.acknowledged(d);
  assert.equal(m.cached, 3);
  assert.deepEqual(m.rowsFor(['a', 'c', 'd'].map(touch)).length, 0, 'b, the least recently seen, was evicted');
  const again = m.rowsFor([touch('b')]);
  assert.deepEqual(
    seriesOf(again).map((s) => s?.id),
    ['b'],
    'b is written again',
  );
  m.acknowledged(again);
  assert.equal(m.rowsFor([touch('b')]).length, 0, 'once');
});

void test('cacheSize 0: every unit writes its distinct series', () => {
  const m = marks(0);
  const rows = m.rowsFor(unit(10));
  m.acknowledged(rows);
  assert.equal(m.cached, 0);
  assert.equal(m.rowsFor(unit(10)).length, 10);
  assert.throws(() => new CatalogMarks({ family: 'd', cacheSize: -1 }), RangeError);
});

void test("the journal row: the minute of the rows' stamp, a cell per row; a sweep of yesterday's cells once per minute a row is reused", () => {
  const clock = { ms: Date.UTC(2026, 10, 29, 10, 0, 30) };
  const m = new CatalogMarks({ family: 'd', cacheSize: 1000, now: () => clock.ms });
  const rows = m.rowsFor(unit(7));
  const j = m.journalRow(rows);
  assert.equal(j.row.key.toString('latin1'), 'catalog/journal/0600');
  assert.deepEqual(
    j.row.cells.map((c) => c.qualifier),
    rows.map((r) => r.row.key),
  );
  assert.deepEqual(
    j.row.cells.map((c) => c.value),
    rows.map((r) => r.row.cells[0]?.value),
  );
  assert.ok(j.row.cells.every((c) => c.timestamp === clock.ms && c.family === 'd'));
  assert.equal(j.sweep?.before, clock.ms - JOURNAL_KEEP_MS, 'the first write to the row');
  m.swept(j);
  clock.ms += 20_000;
  assert.equal(m.journalRow(m.rowsFor(unit(8, 't'))).sweep, undefined, 'swept already this minute');
  clock.ms += 86_400_000;
  const again = m.journalRow(m.rowsFor(unit(8, 'u')));
  assert.equal(again.row.key.toString('latin1'), 'catalog/journal/0600', 'the same minute a day later: the same row');
  assert.equal(again.sweep?.before, clock.ms - JOURNAL_KEEP_MS, 'reused: swept again');
});

void test('series remembered from the catalog are not written again; the cache bounds what is remembered', () => {
  const m = marks(30);
  const known = unit(20)
    .slice(0, 20)
    .map((t) => catalogCacheKey(t.metric, t.id, canonicalTags(t.tags)));
  assert.equal(m.remember(known), 20);
  assert.equal(m.remember(known), 0, 'already remembered');
  assert.deepEqual(m.rowsFor(unit(20)), [], 'every series of the unit is known: nothing to write');
  const withCell = unit(20).map((t) => ({ ...t, tagsCell: canonicalTags(t.tags) }));
  assert.deepEqual(m.rowsFor(withCell), [], 'the same keys when the parser gave the tags cell');
  assert.equal(m.rowsFor(unit(25)).length, 5, 'the five series not in the catalog');
  const other = Array.from({ length: 40 }, (_, i) => catalogCacheKey('x', `id-${i}`, Buffer.from('{}')));
  assert.equal(m.remember(other), 10, 'only while the cache has room');
  assert.equal(m.cached, 30);
});

void test('a series met at least once in every half a cache of new series stays known, moved to the newest end only from the older half', () => {
  const m = marks(4);
  const touch = (id: string): SeriesTouch => ({ id, metric: 'm', tags: {} });
  m.acknowledged(m.rowsFor([touch('kept')]));
  for (let i = 0; i < 40; i++) {
    m.acknowledged(m.rowsFor([touch(`other-${i}`)]));
    if (i % 2 === 1) assert.equal(m.rowsFor([touch('kept')]).length, 0, `kept is still known after ${i + 1} others`);
    assert.ok(m.cached <= 4);
  }
  assert.equal(m.rowsFor([touch('other-0')]).length, 1, 'a series met once, long ago, was evicted');
});

void test('one unit: a series repeated is one row; the same id under another metric or other tag bytes is another', () => {
  const cell = (tags: Record<string, string>) => Buffer.from(canonicalTags(tags));
  const touches: SeriesTouch[] = [
    { id: 'a', metric: 'temp', tags: { site: 's1' }, tagsCell: cell({ site: 's1' }) },
    { id: 'a', metric: 'hum', tags: { site: 's1' }, tagsCell: cell({ site: 's1' }) },
    { id: 'a', metric: 'temp', tags: { site: 's2' }, tagsCell: cell({ site: 's2' }) },
    { id: 'a', metric: 'temp', tags: { site: 's1' }, tagsCell: cell({ site: 's1' }) }, // a repeat (another Buffer, same bytes)
    { id: 'a', metric: 'temp', tags: { site: 's1' } }, // a repeat without its cell
    { id: 'b', metric: 'temp', tags: { site: 's1' } },
    { id: 'b', metric: 'temp', tags: {} },
    { id: 'b', metric: 'temp', tags: {} },
  ];
  const rows = marks().rowsFor(touches);
  assert.deepEqual(
    rows.map((r) => r.cacheKey),
    [
      catalogCacheKey('temp', 'a', cell({ site: 's1' })),
      catalogCacheKey('hum', 'a', cell({ site: 's1' })),
      catalogCacheKey('temp', 'a', cell({ site: 's2' })),
      catalogCacheKey('temp', 'b', cell({ site: 's1' })),
      catalogCacheKey('temp', 'b', Buffer.from('{}')),
    ],
  );
});
