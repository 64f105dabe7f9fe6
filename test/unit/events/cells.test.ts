import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DATA_FAMILY,
  EventError,
  TAGS_QUALIFIER,
  buildDataRow,
  buildEventCells,
  decodeDataRow,
  decodeMetricValue,
  decodeTags,
  encodeMetricValue,
  encodeTags,
  type TsEvent,
} from '../../../src/events/index.ts';

const EVENT: TsEvent = { id: 'sensor-0042', ts: 1732262400000, metric: 'temp', value: 21.5, tags: { site: 'sh-01', rack: 'r1' } };

void test('metric cell: family d, qualifier = metric, 8-byte BE double, timestamp = ts', () => {
  const [metric, tags, ...rest] = buildEventCells(EVENT);
  assert.equal(rest.length, 0);
  assert.deepEqual(metric, {
    family: 'd',
    qualifier: Buffer.from('temp'),
    value: Buffer.from('4035800000000000', 'hex'),
    timestamp: 1732262400000,
  });
  assert.deepEqual(tags, {
    family: DATA_FAMILY,
    qualifier: Buffer.from([0x00, 0x74, 0x61, 0x67, 0x73]),
    value: Buffer.from('{"rack":"r1","site":"sh-01"}'),
    timestamp: 1732262400000,
  });
});

void test('no tags cell when the event has no tags; custom family', () => {
  const cells = buildEventCells({ ...EVENT, tags: {} }, 'f');
  assert.equal(cells.length, 1);
  assert.equal(cells[0]?.family, 'f');
});

void test('buildDataRow uses the DESIGN.md data key', () => {
  const row = buildDataRow(EVENT, 16);
  assert.equal(row.key.toString('hex'), '0973656e736f722d30303432007ffffe6cad1d6fff');
  assert.equal(row.cells.length, 2);
});

void test('metric values round-trip bit-exactly', () => {
  for (const v of [0, -0, 1, -1.25, Number.MAX_VALUE, Number.MIN_VALUE, 2 ** 53 + 2, Math.PI]) {
    const decoded = decodeMetricValue(encodeMetricValue(v));
    assert.ok(Object.is(decoded, v), String(v));
  }
  assert.throws(
    () => decodeMetricValue(Buffer.alloc(4), 'temp'),
    (e: unknown) => e instanceof EventError && e.code === 'MALFORMED_CELL' && e.field === 'temp',
  );
});

void test('tags encoding is stable: sorted by UTF-8 bytes, compact, independent of insertion order', () => {
  assert.equal(encodeTags({}).toString(), '{}');
  assert.equal(encodeTags({ b: '2', a: '1' }).toString(), encodeTags({ a: '1', b: '2' }).toString());
  // integer-like keys would be reordered by a plain JSON.stringify of an object
  assert.equal(encodeTags({ b: 'x', 10: 'y', 2: 'z' }).toString(), '{"10":"y","2":"z","b":"x"}');
  // code point order: U+FF5E before U+1F600 (UTF-16 code-unit order would say otherwise)
  assert.equal(encodeTags({ '😀': '1', '～': '2' }).toString(), '{"～":"2","😀":"1"}');
  assert.equal(encodeTags({ q: 'a"b\\c\n' }).toString(), '{"q":"a\\"b\\\\c\\n"}');
  const protoTags = { ['__proto__']: 'x', k: 'v' }; // computed key: an own property, not the prototype
  assert.equal(encodeTags(protoTags).toString(), '{"__proto__":"x","k":"v"}');
  assert.deepEqual(decodeTags(encodeTags(protoTags)), protoTags);
  assert.deepEqual(Object.keys(decodeTags(encodeTags(protoTags))), ['__proto__', 'k']);
});

void test('decodeDataRow reads metrics and tags, skips reserved qualifiers', () => {
  const rowCells = [
    ...buildEventCells(EVENT),
    ...buildEventCells({ ...EVENT, metric: 'hum', value: 40, tags: {} }),
    ...buildEventCells({ ...EVENT, metric: '温度', value: -3.5, tags: {} }),
    { qualifier: Buffer.from('\u0000future', 'latin1'), value: Buffer.from('whatever') },
  ];
  assert.deepEqual(decodeDataRow(rowCells), { metrics: { temp: 21.5, hum: 40, 温度: -3.5 }, tags: { rack: 'r1', site: 'sh-01' } });
  assert.deepEqual(decodeDataRow([]), { metrics: {}, tags: {} });
  const proto = decodeDataRow(buildEventCells({ ...EVENT, metric: '__proto__', tags: {} }));
  assert.deepEqual(Object.entries(proto.metrics), [['__proto__', 21.5]]);
});

void test('decodeDataRow rejects malformed cells', () => {
  const malformed = (e: unknown) => e instanceof EventError && e.code === 'MALFORMED_CELL';
  assert.throws(() => decodeDataRow([{ qualifier: Buffer.from('temp'), value: Buffer.alloc(7) }]), malformed);
  assert.throws(() => decodeDataRow([{ qualifier: Buffer.from([0xff]), value: Buffer.alloc(8) }]), malformed);
  assert.throws(() => decodeDataRow([{ qualifier: Buffer.from([0xff]), value: Buffer.alloc(8) }]), malformed, 'a bad name is never kept');
  assert.deepEqual(decodeDataRow([{ qualifier: new Uint8Array([0x74]), value: new Uint8Array(Buffer.alloc(8)) }]).metrics, { t: 0 }, 'plain Uint8Arrays too');
  assert.throws(() => decodeDataRow([{ qualifier: TAGS_QUALIFIER, value: Buffer.from('[1]') }]), malformed);
  assert.throws(() => decodeDataRow([{ qualifier: TAGS_QUALIFIER, value: Buffer.from('{"a":1}') }]), /tag a is not a string/);
  assert.throws(() => decodeDataRow([{ qualifier: TAGS_QUALIFIER, value: Buffer.from('{') }]), malformed);
});
