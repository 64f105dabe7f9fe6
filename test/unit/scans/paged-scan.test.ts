import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ScanOptions } from '../../../src/hbase/scanner.ts';
import type { Row } from '../../../src/hbase/types.ts';
import { pagesOf, rowAfter, scanPages, type ScanPort } from '../../../src/scans/paged-scan.ts';

/** Rows with one-byte keys 0..n-1 (keys given as numbers); scans honour start, stop and limit. */
function storeOf(keys: readonly number[]): ScanPort & { asked: ScanOptions[] } {
  const rows: Row[] = keys.map((k) => ({ row: Buffer.from([k]), cells: [] }));
  const asked: ScanOptions[] = [];
  return {
    asked,
    async *scan(_table, opts) {
      asked.push(opts);
      await Promise.resolve();
      let n = 0;
      for (const r of rows) {
        if (opts.startRow !== undefined && Buffer.compare(r.row, opts.startRow) < 0) continue;
        if (opts.stopRow !== undefined && opts.stopRow.length > 0 && Buffer.compare(r.row, opts.stopRow) >= 0) break;
        if (opts.limit !== undefined && n++ >= opts.limit) return;
        yield r;
      }
    },
  };
}

const keysOf = (pages: Row[][]): number[][] => pages.map((p) => p.map((r) => r.row[0] ?? -1));

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

void test('rowAfter is the smallest key after a key', () => {
  const k = Buffer.from([1, 0x41]);
  assert.deepEqual(rowAfter(k), Buffer.from([1, 0x41, 0]));
  assert.deepEqual(rowAfter(Buffer.alloc(0)), Buffer.from([0]));
  assert.ok(Buffer.compare(rowAfter(k), k) > 0 && Buffer.compare(rowAfter(k), Buffer.from([1, 0x42])) < 0);
});

void test('pages of at most pageRows in key order over [start, stop), each a fresh scan just past the previous page', async () => {
  const store = storeOf([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  const columns = [Buffer.from('d')];
  const pages = await collect(
    scanPages(store, 't', { startRow: Buffer.from([2]), stopRow: Buffer.from([9]), pageRows: 3, columns, timeRange: { from: 1, to: 2 } }),
  );
  assert.deepEqual(keysOf(pages), [[2, 3, 4], [5, 6, 7], [8]]);
  assert.deepEqual(
    store.asked.map((o) => [...(o.startRow ?? [])]),
    [[2], [4, 0], [7, 0]],
  );
  for (const o of store.asked) {
    assert.equal(o.limit, 3, "pageRows is each scan's limit");
    assert.equal(o.pageRows, undefined, "not passed on as the scanner's HTTP page size");
    assert.deepEqual(o.stopRow, Buffer.from([9]));
    assert.equal(o.columns, columns, 'the scan shape is passed through');
    assert.deepEqual(o.timeRange, { from: 1, to: 2 });
  }
});

void test('no empty page: a range that ends on a page boundary costs one more (empty) scan; an empty range yields nothing', async () => {
  const store = storeOf([1, 2, 3, 4]);
  assert.deepEqual(keysOf(await collect(scanPages(store, 't', { startRow: Buffer.from([1]), pageRows: 2 }))), [
    [1, 2],
    [3, 4],
  ]);
  assert.equal(store.asked.length, 3);
  assert.deepEqual(await collect(scanPages(store, 't', { startRow: Buffer.from([7]), pageRows: 2 })), []);
  await assert.rejects(collect(scanPages(store, 't', { startRow: Buffer.alloc(0), pageRows: 0 })), /pageRows must be a positive integer/);
});

void test('the next page is read only when asked for', async () => {
  const store = storeOf([1, 2, 3, 4, 5]);
  for await (const page of scanPages(store, 't', { startRow: Buffer.alloc(0), pageRows: 2 })) {
    assert.equal(page.length, 2);
    break;
  }
  assert.equal(store.asked.length, 1);
});

void test('pagesOf groups a stream into pages, the last one shorter', async () => {
  async function* items(n: number): AsyncGenerator<number> {
    for (let i = 0; i < n; i++) yield await Promise.resolve(i);
  }
  assert.deepEqual(await collect(pagesOf(items(5), 2)), [[0, 1], [2, 3], [4]]);
  assert.deepEqual(await collect(pagesOf(items(4), 2)), [
    [0, 1],
    [2, 3],
  ]);
  assert.deepEqual(await collect(pagesOf(items(0), 2)), []);
  await assert.rejects(collect(pagesOf(items(1), 0)), /page size must be a positive integer/);
});
