// The HBase semantics test/support/fake-hbase.ts claims: unsigned byte order, [start, stop) scans,
// column / time-range / filter selection, newest-timestamp-wins, atomic check-and-mutate, and the
// call log and injected faults the unit tests lean on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { column } from '../../../src/hbase/codec.ts';
import type { Row, ScanOptions } from '../../../src/hbase/index.ts';
import { FakeHBase } from '../../support/fake-hbase.ts';

const T = 't';
const k = (...bytes: number[]): Buffer => Buffer.from(bytes);
const hex = (rows: readonly Row[]): string[] => rows.map((r) => r.row.toString('hex'));

async function scanned(h: FakeHBase, opts: ScanOptions = {}): Promise<Row[]> {
  const out: Row[] = [];
  for await (const r of h.scan(T, opts)) out.push(r);
  return out;
}

function cell(h: FakeHBase, row: Buffer, qualifier: string, c: { readonly value?: string; readonly timestamp?: number; readonly family?: string } = {}): void {
  const { value = 'v', timestamp = 1, family = 'd' } = c;
  h.seed(T, row, [{ family, qualifier: Buffer.from(qualifier), value: Buffer.from(value), timestamp }]);
}

void test('rows come in unsigned byte order, a key before its extensions', async () => {
  const h = new FakeHBase();
  for (const key of [k(0xff), k(0x80), k(0x7f), k(0x01, 0x00), k(0x01), k(0x00)]) cell(h, key, 'q');
  assert.deepEqual(hex(await scanned(h)), ['00', '01', '0100', '7f', '80', 'ff']);
  assert.deepEqual(hex(h.rows(T)), ['00', '01', '0100', '7f', '80', 'ff']);
});

void test('scan: start row inclusive, stop row exclusive, an empty stop row runs to the end; limit counts rows', async () => {
  const h = new FakeHBase();
  for (const b of [1, 2, 3, 4, 5]) cell(h, k(b), 'q');
  assert.deepEqual(hex(await scanned(h, { startRow: k(2), stopRow: k(4) })), ['02', '03']);
  assert.deepEqual(hex(await scanned(h, { startRow: k(2, 0), stopRow: k(3, 0) })), ['03'], 'between keys');
  assert.deepEqual(hex(await scanned(h, { startRow: k(4), stopRow: Buffer.alloc(0) })), ['04', '05']);
  assert.deepEqual(hex(await scanned(h, { startRow: k(2), limit: 2 })), ['02', '03']);
});

void test('columns select a family or one column; time range is [from, to); cells in family, qualifier order', async () => {
  const h = new FakeHBase();
  cell(h, k(1), 'b', { timestamp: 10 });
  cell(h, k(1), 'a', { timestamp: 20 });
  cell(h, k(1), 'x', { timestamp: 30, family: 'e' });
  cell(h, k(2), 'x', { timestamp: 30, family: 'e' });
  const cols = (rows: readonly Row[]): string[][] => rows.map((r) => r.cells.map((c) => c.column.toString()));
  assert.deepEqual(cols(await scanned(h)), [['d:a', 'd:b', 'e:x'], ['e:x']]);
  assert.deepEqual(cols(await scanned(h, { columns: [Buffer.from('d')] })), [['d:a', 'd:b']], 'a row without the columns is not returned');
  assert.deepEqual(cols(await scanned(h, { columns: [column('d', 'b'), column('e', 'x')] })), [['d:b', 'e:x'], ['e:x']]);
  assert.deepEqual(cols(await scanned(h, { timeRange: { from: 10, to: 30 } })), [['d:a', 'd:b']]);
  assert.deepEqual(
    (await h.multiGet(T, [k(2), k(9), k(1)], { columns: [Buffer.from('e')] })).map((r) => r?.row.toString('hex') ?? null),
    ['02', null, '01'],
  );
});

void test('filters: MultiRowRangeFilter ranges with their inclusive ends, FirstKeyOnlyFilter one cell per row', async () => {
  const h = new FakeHBase();
  for (const b of [1, 2, 3, 4, 5, 6]) for (const q of ['a', 'b']) cell(h, k(b), q);
  const filter: ScanOptions['filter'] = {
    type: 'MultiRowRangeFilter',
    ranges: [
      { startRow: k(1), stopRow: k(2) },
      { startRow: k(3), startRowInclusive: false, stopRow: k(5), stopRowInclusive: true },
    ],
  };
  assert.deepEqual(hex(await scanned(h, { filter })), ['01', '04', '05']);
  assert.deepEqual(
    (await scanned(h, { filter: { type: 'FirstKeyOnlyFilter' }, limit: 2 })).map((r) => r.cells.length),
    [1, 1],
  );
});

void test('one version per column: the newest timestamp wins, a tie goes to the later write; no timestamp = the clock', async () => {
  const h = new FakeHBase(500);
  cell(h, k(1), 'q', { value: 'new', timestamp: 20 });
  cell(h, k(1), 'q', { value: 'old', timestamp: 10 });
  assert.equal(h.rows(T)[0]?.cells[0]?.value.toString(), 'new');
  cell(h, k(1), 'q', { value: 'tie', timestamp: 20 });
  assert.equal(h.rows(T)[0]?.cells[0]?.value.toString(), 'tie');
  await h.put(T, [{ row: k(2), cells: [{ column: column('d', 'q'), value: Buffer.from('x') }] }]);
  assert.equal(h.rows(T)[1]?.cells[0]?.timestamp, 500);
  assert.equal(h.clock, 501);
});

void test('check-and-put: applies only when the check holds; a null check holds for an absent or empty cell', async () => {
  const h = new FakeHBase();
  const q = column('d', 'q');
  const put = (value: string): { column: Buffer; value: Buffer }[] => [{ column: q, value: Buffer.from(value) }];
  assert.equal(await h.checkAndPut(T, { row: k(1), cells: put('a'), check: { column: q, value: null } }), true, 'absent');
  assert.equal(await h.checkAndPut(T, { row: k(1), cells: put('b'), check: { column: q, value: null } }), false, 'present now');
  assert.equal(await h.checkAndPut(T, { row: k(1), cells: put('b'), check: { column: q, value: Buffer.from('x') } }), false, 'another value');
  assert.equal(await h.checkAndPut(T, { row: k(1), cells: put('b'), check: { column: q, value: Buffer.from('a') } }), true);
  assert.equal((await h.get(T, k(1)))?.cells[0]?.value.toString(), 'b');
  cell(h, k(2), 'q', { value: '' });
  assert.equal(await h.checkAndPut(T, { row: k(2), cells: put('c'), check: { column: q, value: null } }), true, 'an empty cell matches a null check');
  // A writer that lands between the caller's read and its check-and-put makes the check fail.
  h.beforeCheck = () => {
    cell(h, k(1), 'q', { value: 'raced', timestamp: Date.now() + 1000 });
  };
  assert.equal(await h.checkAndPut(T, { row: k(1), cells: put('d'), check: { column: q, value: Buffer.from('b') } }), false);
  assert.equal((await h.get(T, k(1)))?.cells[0]?.value.toString(), 'raced');
});

void test('check-and-delete: a family up to a timestamp, one column at its timestamp, or the check column; an emptied row is gone', async () => {
  const h = new FakeHBase();
  const v = column('d', 'v');
  cell(h, k(1), 'v', { value: '1', timestamp: 5 });
  cell(h, k(1), 'a', { value: '', timestamp: 3 });
  cell(h, k(1), 'b', { value: '', timestamp: 9 });
  assert.equal(await h.checkAndDelete(T, { row: k(1), check: { column: v, value: Buffer.from('2') }, deleteCells: [{ column: Buffer.from('d') }] }), false);
  assert.equal(
    await h.checkAndDelete(T, { row: k(1), check: { column: v, value: Buffer.from('1') }, deleteCells: [{ column: Buffer.from('d'), timestamp: 5 }] }),
    true,
  );
  assert.deepEqual(h.snapshot(T), new Map([['01', ['b']]]));
  assert.equal(await h.checkAndDelete(T, { row: k(1), check: { column: v, value: null }, deleteCells: [{ column: column('d', 'b'), timestamp: 8 }] }), true);
  assert.deepEqual(h.snapshot(T), new Map([['01', ['b']]]), 'not the version at 8');
  assert.equal(await h.checkAndDelete(T, { row: k(1), check: { column: column('d', 'b'), value: Buffer.alloc(0) } }), true);
  assert.equal(h.has(T, k(1)), false);
});

void test('deleteRow: the row, or only some families / columns', async () => {
  const h = new FakeHBase();
  for (const q of ['a', 'b']) cell(h, k(1), q);
  cell(h, k(1), 'x', { family: 'e' });
  await h.deleteRow(T, k(1), { columns: [column('d', 'a'), Buffer.from('e')] });
  assert.deepEqual(h.snapshot(T), new Map([['01', ['b']]]));
  await h.deleteRow(T, k(1));
  assert.equal(h.has(T, k(1)), false);
  await h.deleteRow(T, k(1));
});

void test('calls are logged before they run; fail() fails the next matching calls, a scan when it opens', async () => {
  const h = new FakeHBase();
  cell(h, k(1), 'q');
  h.fail({ op: 'scan', table: T, times: 2 });
  h.fail({ op: 'put' });
  const opened = h.scan(T);
  await assert.rejects(scanned(h), /injected scan failure on t/);
  await assert.rejects(opened.next(), /injected scan failure on t/);
  assert.equal((await scanned(h)).length, 1, 'the third scan runs');
  await assert.rejects(h.put('other', []), /injected put failure on other/);
  await h.put(T, []);
  h.fail({ error: new Error('gateway down') });
  await assert.rejects(h.get(T, k(1)), /gateway down/);
  assert.deepEqual([h.count('scan'), h.count('put'), h.count('put', T), h.count('get')], [3, 2, 1, 1]);
  assert.deepEqual(h.calls.at(-1), { op: 'get', table: T, row: k(1) });
});

void test('a scan step waits for the event loop: concurrent scans overlap and the gauge sees them', async () => {
  const h = new FakeHBase();
  for (const b of [1, 2, 3]) cell(h, k(b), 'q');
  await Promise.all([scanned(h), scanned(h)]);
  assert.equal(h.maxActive, 2);
  assert.equal(h.active, 0);
  const copy = h.clone();
  cell(h, k(4), 'q');
  assert.deepEqual(hex(copy.rows(T)), ['01', '02', '03'], 'a clone keeps its own data');
});
