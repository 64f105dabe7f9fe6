import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildDataRow, encodeTags } from '../../../src/events/cells.ts';
import type { TsEvent } from '../../../src/events/event.ts';
import { column } from '../../../src/hbase/codec.ts';
import type { Row } from '../../../src/hbase/types.ts';
import { Keyspace } from '../../../src/keys/index.ts';
import { eventItemOf, isoOf, tagsOfCell } from '../../../src/reads-v1/decode.ts';

const B = 16;

function rowOf(event: TsEvent): Row {
  const r = buildDataRow(event, B, 'd');
  return {
    row: r.key,
    cells: r.cells.map((c) => {
      const col = column(c.family, c.qualifier);
      return { column: col, family: Buffer.from(c.family), qualifier: c.qualifier, timestamp: c.timestamp, value: c.value };
    }),
  };
}

test('tagsOfCell: the same bytes answer the same frozen object, other bytes are decoded, bad bytes still throw', () => {
  const a = Buffer.from('{"site":"a"}');
  const first = tagsOfCell(a);
  assert.deepEqual(first, { site: 'a' });
  assert.ok(Object.isFrozen(first));
  assert.equal(tagsOfCell(Buffer.from('{"site":"a"}')), first, 'equal bytes elsewhere: the kept result');
  a.write('{"site":"b"}'); // the memo holds a copy, not a view of the caller's bytes
  assert.deepEqual(tagsOfCell(a), { site: 'b' });
  assert.deepEqual(tagsOfCell(Buffer.from('{"site":"a"}')), { site: 'a' });
  assert.throws(() => tagsOfCell(Buffer.from('{"site":1}')), /not a string/);
  assert.throws(() => tagsOfCell(Buffer.from([0x7b, 0xff, 0x7d])), /not UTF-8 JSON/);
  assert.deepEqual(tagsOfCell(encodeTags({ site: 'a' })), { site: 'a' });
});

test('eventItemOf: id, ts, time, metrics and tags of a data row; consecutive rows share their tags', () => {
  const keyspace = new Keyspace({ buckets: B, format: 'binary', indexSaltMode: 'entry' });
  const ts = 1732262400000;
  const one = eventItemOf(rowOf({ id: '设备-7', ts, metric: 'temp', value: 21.5, tags: { site: 'x' } }), keyspace);
  assert.deepEqual(one, { id: '设备-7', ts, time: '2024-11-22T08:00:00.000Z', metrics: { temp: 21.5 }, tags: { site: 'x' } });
  const two = eventItemOf(rowOf({ id: '设备-7', ts: ts - 1, metric: 'hum', value: 40, tags: { site: 'x' } }), keyspace);
  assert.equal(two.tags, one.tags);
  assert.deepEqual(eventItemOf(rowOf({ id: 'dev', ts, metric: 'temp', value: 1, tags: {} }), keyspace), {
    id: 'dev',
    ts,
    time: '2024-11-22T08:00:00.000Z',
    metrics: { temp: 1 },
    tags: {},
  });
});

test('isoOf: Date.toISOString (String(ms) beyond the Date range), also across days and from a kept day', () => {
  const reference = (ms: number): string => {
    const d = new Date(ms);
    return Number.isNaN(d.getTime()) ? String(ms) : d.toISOString();
  };
  const edges = [
    0,
    1,
    999,
    86_399_999,
    86_400_000,
    1732262400000,
    253402300799999,
    253402300800000,
    8.64e15 - 1,
    8.64e15,
    8.64e15 + 1,
    2 ** 53 - 1,
    -1,
    -86_400_001,
    1.5,
    Number.NaN,
    Number.POSITIVE_INFINITY,
  ];
  for (const ms of [...edges, ...edges.reverse()]) assert.equal(isoOf(ms), reference(ms), String(ms));
  let ms = 1732262400000;
  for (let i = 0; i < 20_000; i++) {
    ms += ((i * 7919) % 9000) - 2000; // back and forth, across day boundaries
    if (i % 5000 === 0) ms = 8.64e15 - 200_000;
    assert.equal(isoOf(ms), reference(ms), String(ms));
  }
});
