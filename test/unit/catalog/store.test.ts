// CatalogStore: one prefix scan (all series, or one metric's), damaged rows skipped and counted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GENERATION_QUALIFIER, GENERATION_ROW, seriesRow } from '../../../src/catalog/rows.ts';
import { CatalogStore, type CatalogScanPort, type CatalogScanRow } from '../../../src/catalog/store.ts';

function port(rows: CatalogScanRow[]): CatalogScanPort & { ranges: string[] } {
  const ranges: string[] = [];
  return {
    ranges,
    async *scan(_table, o) {
      ranges.push(`${o.startRow.toString('latin1')}..${o.stopRow.toString('latin1')}`);
      await Promise.resolve();
      for (const r of [...rows].sort((a, b) => Buffer.compare(a.row, b.row))) {
        if (Buffer.compare(r.row, o.startRow) >= 0 && Buffer.compare(r.row, o.stopRow) < 0) yield r;
      }
    },
    get(_table, key) {
      return Promise.resolve(rows.find((r) => r.row.equals(key)) ?? null);
    },
  };
}

const row = (metric: string, id: string, tags: Record<string, string>): CatalogScanRow => {
  const r = seriesRow({ metric, id, tags });
  return { row: r.key, cells: [{ qualifier: Buffer.from('t'), value: r.value }] };
};

void test('reads every series, or one metric; skips foreign and damaged rows', async () => {
  const p = port([
    row('cpu', 'a', { dc: 'x' }),
    row('cpu', 'b', {}),
    row('cpu2', 'a', {}),
    { row: Buffer.from('spread/a'), cells: [{ qualifier: Buffer.from('e'), value: Buffer.from('{}') }] },
    { row: seriesRow({ metric: 'cpu', id: 'c', tags: {} }).key, cells: [{ qualifier: Buffer.from('t'), value: Buffer.from('{"x":"1"}') }] },
  ]);
  const store = new CatalogStore(p, { table: 'meta' });
  const all = await store.read();
  assert.deepEqual(all.series.map((s) => `${s.metric}/${s.id}`).sort(), ['cpu/a', 'cpu/b', 'cpu2/a']);
  assert.equal(all.skipped, 1, 'the row whose digest does not match its cell');
  const cpu = await store.read('cpu');
  assert.deepEqual(cpu.series.map((s) => s.id).sort(), ['a', 'b']);
  assert.deepEqual(cpu.series.find((s) => s.id === 'a')?.tags, { dc: 'x' });
  assert.equal(p.ranges[1], 'series/cpu\u0000..series/cpu\u0001');
});

void test("the catalog's generation: the token's hex, undefined before any writer wrote one", async () => {
  const none = new CatalogStore(port([row('cpu', 'a', {})]), { table: 'meta' });
  assert.equal(await none.generation(), undefined);
  const token = Buffer.from('0102030405060708', 'hex');
  const some = new CatalogStore(port([{ row: GENERATION_ROW, cells: [{ qualifier: GENERATION_QUALIFIER, value: token }] }]), { table: 'meta' });
  assert.equal(await some.generation(), '0102030405060708');
});
