import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { canonicalTags, decodeSeriesRow, metricRange, SERIES_PREFIX, SERIES_RANGE, seriesRow, seriesRowOf, type Series } from '../../../src/catalog/rows.ts';

void test('series row: the layout byte for byte (prefix, metric, NUL, id, NUL, SHA-1[0..8] of the tags JSON)', () => {
  const r = seriesRow({ metric: 'temp', id: 'dev-1', tags: { site: 'sh-01', rack: 'r1' } });
  const json = '{"rack":"r1","site":"sh-01"}';
  assert.equal(r.value.toString('utf8'), json);
  const digest = createHash('sha1').update(json).digest().subarray(0, 8);
  assert.deepEqual(r.key, Buffer.concat([Buffer.from('series/temp\u0000dev-1\u0000', 'utf8'), digest]));
  assert.equal(seriesRow({ metric: 'temp', id: 'dev-1', tags: {} }).value.toString(), '{}');
});

void test('series row: round trip, unicode, awkward tag keys and values, a digest with NUL bytes', () => {
  const cases: Series[] = [
    { metric: 'temp', id: 'dev-1', tags: {} },
    { metric: '温度', id: '设备-7', tags: { 城市: '上海' } },
    { metric: 'a.b/c', id: 'x y', tags: { 'k"\\': 'v\n\t"', '': '', __proto__x: '1' } },
  ];
  for (let i = 0; i < 300; i++) cases.push({ metric: `m${i % 7}`, id: `id-${i}`, tags: { n: String(i) } });
  let sawNulDigest = false;
  for (const s of cases) {
    const r = seriesRow(s);
    if (r.key.subarray(-8).includes(0x00)) sawNulDigest = true;
    assert.deepEqual(decodeSeriesRow(r.key, r.value), { metric: s.metric, id: s.id, tags: { ...s.tags } });
  }
  assert.ok(sawNulDigest, 'some digest holds a 0x00 byte (the id is still read back)');
});

void test('series row: the same tag set in any order is one row; another value is another row', () => {
  const a = seriesRow({ metric: 'm', id: 'i', tags: { a: '1', b: '2' } });
  const b = seriesRow({ metric: 'm', id: 'i', tags: { b: '2', a: '1' } });
  const c = seriesRow({ metric: 'm', id: 'i', tags: { a: '1', b: '3' } });
  assert.deepEqual(a, b);
  assert.notDeepEqual(a.key, c.key);
  assert.deepEqual(seriesRowOf('m', 'i', canonicalTags({ b: '2', a: '1' })), a);
});

void test('series row: refuses NUL and empty names; decode skips foreign and damaged rows', () => {
  assert.throws(() => seriesRow({ metric: 'a\u0000b', id: 'i', tags: {} }), RangeError);
  assert.throws(() => seriesRow({ metric: 'm', id: '', tags: {} }), RangeError);
  const r = seriesRow({ metric: 'm', id: 'i', tags: { a: '1' } });
  assert.equal(decodeSeriesRow(Buffer.from('spread/i'), r.value), undefined);
  assert.equal(decodeSeriesRow(r.key, Buffer.from('{"a":"2"}')), undefined, 'digest mismatch');
  const broken = Buffer.from(r.key);
  broken[broken.length - 9] = 0x41;
  assert.equal(decodeSeriesRow(broken, r.value), undefined, 'no NUL before the digest');
  const notObject = seriesRowOf('m', 'i', Buffer.from('[1]'));
  assert.equal(decodeSeriesRow(notObject.key, notObject.value), undefined);
});

void test('ranges: all series, and one metric without its longer neighbours', () => {
  assert.deepEqual(SERIES_RANGE.startRow, SERIES_PREFIX);
  const cpu = metricRange('cpu');
  const inRange = (k: Buffer): boolean => Buffer.compare(k, cpu.startRow) >= 0 && Buffer.compare(k, cpu.stopRow) < 0;
  assert.ok(inRange(seriesRow({ metric: 'cpu', id: 'a', tags: {} }).key));
  assert.ok(!inRange(seriesRow({ metric: 'cpu2', id: 'a', tags: {} }).key));
  assert.ok(!inRange(seriesRow({ metric: 'cp', id: 'a', tags: {} }).key));
});
