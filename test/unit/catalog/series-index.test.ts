// SeriesIndex: suggest (sorted, prefix, max, code point order), lookup with OpenTSDB filter semantics
// (literal_or, wildcard incl. `*`, regexp, not_literal_or, absent keys), the id under idTagKey, limit
// and total, add/replace/refresh.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Series } from '../../../src/catalog/rows.ts';
import { SeriesIndex } from '../../../src/catalog/series-index.ts';
import { buildFilter } from '../../../src/series-language/filters.ts';
import type { FilterType } from '../../../src/series-language/types.ts';
import { Slices } from '../../../src/toolkit/slices.ts';
import { prng } from '../../../src/demo/generate.ts';

const SERIES: Series[] = [
  { metric: 'sys.cpu.user', id: 'web01', tags: { host: 'web01', dc: 'lga' } },
  { metric: 'sys.cpu.user', id: 'web02', tags: { host: 'web02', dc: 'lga' } },
  { metric: 'sys.cpu.user', id: 'db01', tags: { host: 'db01', dc: 'sjc' } },
  { metric: 'sys.cpu.user', id: 'db01', tags: { host: 'db01', dc: 'sjc', env: 'prod' } },
  { metric: 'sys.cpu.sys', id: 'web01', tags: { host: 'web01', dc: 'lga' } },
  { metric: 'sys.mem', id: 'web01', tags: {} },
  { metric: 'temp', id: 'sensor-1', tags: { id: 'shadowed', site: 'Zürich' } },
];

function index(): SeriesIndex {
  const ix = new SeriesIndex({ idTagKey: 'id' });
  for (const s of SERIES) ix.add(s);
  return ix;
}

const f = (type: FilterType, tagk: string, filter: string) => buildFilter(type, tagk, filter);
const ids = (ix: SeriesIndex, metric: string | undefined, filters: ReturnType<typeof f>[]) =>
  ix.lookup(metric, filters).series.map((s) => `${s.metric}:${s.id}:${JSON.stringify(s.tags)}`);

void test('suggest: sorted, prefix, max (default 25), empty prefix = all', () => {
  const ix = index();
  assert.deepEqual(ix.metrics('sys.cpu'), ['sys.cpu.sys', 'sys.cpu.user']);
  assert.deepEqual(ix.metrics(''), ['sys.cpu.sys', 'sys.cpu.user', 'sys.mem', 'temp']);
  assert.deepEqual(ix.metrics('sys', 1), ['sys.cpu.sys']);
  assert.deepEqual(ix.metrics('nope'), []);
  assert.deepEqual(ix.tagKeys(), ['dc', 'env', 'host', 'id', 'site'], 'the id key is a tag key');
  assert.deepEqual(ix.tagValues('web'), ['web01', 'web02']);
  assert.deepEqual(ix.tagValues('sensor'), ['sensor-1'], 'ids are tag values');
  assert.ok(!ix.tagValues('').includes('shadowed'), 'a shadowed event tag is not shown');
  const many = new SeriesIndex({ idTagKey: 'id' });
  for (let i = 0; i < 40; i++) many.add({ metric: `m.${String(i).padStart(2, '0')}`, id: 'x', tags: {} });
  assert.equal(many.metrics('m.').length, 25);
  assert.equal(many.metrics('m.', 100).length, 40);
  assert.deepEqual(
    many.metrics('m.3'),
    Array.from({ length: 10 }, (_, i) => `m.3${i}`),
  );
});

void test('suggest: code point (UTF-8 byte) order, not UTF-16 order', () => {
  const ix = new SeriesIndex({ idTagKey: 'id' });
  for (const m of ['a\u{1F600}', 'a\uFF10', 'a~']) ix.add({ metric: m, id: 'x', tags: {} });
  assert.deepEqual(ix.metrics('a'), ['a~', 'a\uFF10', 'a\u{1F600}']);
});

void test('lookup: literal_or and the id under idTagKey (the id wins over an event tag of that name)', () => {
  const ix = index();
  assert.deepEqual(ids(ix, 'sys.cpu.user', [f('literal_or', 'host', 'web01|web02')]), [
    'sys.cpu.user:web01:{"dc":"lga","host":"web01","id":"web01"}',
    'sys.cpu.user:web02:{"dc":"lga","host":"web02","id":"web02"}',
  ]);
  assert.deepEqual(
    ids(ix, undefined, [f('literal_or', 'id', 'web01')]).map((s) => s.split(':')[0]),
    ['sys.cpu.sys', 'sys.cpu.user', 'sys.mem'],
  );
  assert.deepEqual(ids(ix, 'temp', []), ['temp:sensor-1:{"id":"sensor-1","site":"Zürich"}']);
  assert.deepEqual(ids(ix, 'temp', [f('literal_or', 'id', 'shadowed')]), []);
  assert.deepEqual(ids(ix, 'sys.cpu.user', [f('iliteral_or', 'host', 'WEB01')]).length, 1);
  assert.deepEqual(ids(ix, 'sys.cpu.user', [f('literal_or', 'host', 'web01|web01|')]).length, 1, 'duplicate and trailing-empty literals');
});

void test('lookup: wildcard (`*` = any value of the key, absent key fails), regexp, not_literal_or (absent key passes)', () => {
  const ix = index();
  assert.equal(ix.lookup('sys.cpu.user', [f('wildcard', 'env', '*')]).total, 1);
  assert.equal(ix.lookup('sys.cpu.user', [f('wildcard', 'host', 'web*')]).total, 2);
  assert.equal(ix.lookup('sys.cpu.user', [f('iwildcard', 'host', 'WEB*')]).total, 2);
  assert.equal(ix.lookup('sys.cpu.user', [f('regexp', 'host', '^db[0-9]+$')]).total, 2);
  assert.equal(ix.lookup('sys.cpu.user', [f('not_literal_or', 'env', 'prod')]).total, 3, 'series without env pass');
  assert.equal(ix.lookup('sys.cpu.user', [f('literal_or', 'dc', 'sjc'), f('not_literal_or', 'env', 'prod')]).total, 1);
  assert.equal(ix.lookup(undefined, [f('wildcard', 'dc', '*')]).total, 5);
  assert.equal(ix.lookup('nope', []).total, 0);
});

void test('lookup: limit keeps the first in order; total counts all', () => {
  const ix = index();
  const r = ix.lookup(undefined, [f('literal_or', 'dc', 'lga|sjc')], 2);
  assert.equal(r.total, 5);
  assert.deepEqual(
    r.series.map((s) => `${s.metric}:${s.id}`),
    ['sys.cpu.sys:web01', 'sys.cpu.user:db01'],
  );
  assert.equal(ix.lookup(undefined, [], 0).series.length, 0);
});

void test('add is idempotent (tags in any order), replace and refresh swap the content', async () => {
  const ix = index();
  assert.equal(ix.size, SERIES.length);
  assert.equal(ix.add({ metric: 'sys.cpu.user', id: 'web01', tags: { dc: 'lga', host: 'web01' } }), false);
  assert.equal(ix.add({ metric: 'new.metric', id: 'n', tags: {} }), true);
  assert.deepEqual(ix.metrics('new'), ['new.metric'], 'a read after add sees it');
  ix.replace([{ metric: 'only', id: 'o', tags: {} }]);
  assert.deepEqual(ix.metrics(), ['only']);
  const fromStore = new SeriesIndex({ idTagKey: 'host_id', source: { read: () => Promise.resolve({ series: SERIES }) } });
  assert.equal(await fromStore.refresh(), SERIES.length);
  assert.ok(fromStore.tagKeys().includes('host_id'));
  await assert.rejects(new SeriesIndex({ idTagKey: 'id' }).refresh(), /no source/);
});

void test('series added after the views were built are merged into them: every answer as a fresh index gives, old views untouched', async () => {
  const r = prng(7);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const metrics = ['temp', 'hum', 'load', 'a.b', 'zz'];
  const sites = ['site-0', 'site-1', 'site-2', 'Zürich', 'é'];
  const one = (): Series => {
    const tags: Record<string, string> = { site: pick(sites) };
    if (r() < 0.3) tags['env'] = pick(['prod', 'dev', 'qa']);
    if (r() < 0.1) tags[`k${Math.floor(r() * 4)}`] = `v${Math.floor(r() * 50)}`;
    return { metric: pick(metrics), id: `dev-${Math.floor(r() * 400)}`, tags };
  };
  const merged = new SeriesIndex({ idTagKey: 'id' });
  const all: Series[] = [];
  for (let i = 0; i < 800; i++) {
    const s = one();
    all.push(s);
    merged.add(s);
  }
  const filters = [
    [],
    [f('literal_or', 'site', 'site-1|Zürich')],
    [f('wildcard', 'site', '*')],
    [f('literal_or', 'id', 'dev-3|dev-77')],
    [f('regexp', 'k1', '.*')],
    [f('literal_or', 'id', Array.from({ length: 60 }, (_, i) => `dev-${i * 3}`).join('|'))],
  ];
  const answers = (ix: SeriesIndex): unknown => ({
    metrics: ix.metrics('', 1000),
    tagKeys: ix.tagKeys('', 1000),
    tagValues: ix.tagValues('', 100_000),
    lookups: [...metrics, undefined].flatMap((m) => filters.map((fs) => ix.lookup(m, fs))),
    every: ix.lookup(undefined, [], 5000),
    ofId: ['dev-3', 'dev-77', 'dev-399'].map((id) => ix.seriesOfId('temp', id)),
  });
  const held = merged.lookup('temp', []); // views built
  const heldSeries = [...held.series];
  for (let round = 0; round < 6; round++) {
    const n = [1, 3, 20, 60, 5, 90][round] as number;
    for (let i = 0; i < n; i++) {
      const s = round === 3 && i === 0 ? { metric: 'brand-new', id: 'new-id', tags: { newkey: 'new-value' } } : one();
      all.push(s);
      merged.add(s);
    }
    if (round % 2 === 0) await merged.prepare(new Slices());
    const fresh = new SeriesIndex({ idTagKey: 'id' });
    for (const s of all) fresh.add(s);
    assert.deepEqual(answers(merged), answers(fresh), `round ${round}: the merged views answer as rebuilt ones`);
  }
  assert.deepEqual(held.series, heldSeries, 'an answer taken before the merges is unchanged');
  assert.ok(merged.metrics('brand').includes('brand-new') && merged.tagKeys('new').includes('newkey'));
});
