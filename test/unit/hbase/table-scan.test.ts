import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tableScanPath } from '../../../src/hbase/table-scan.ts';

void test('a bounded scan with UTF-8 bounds is one GET of the stateless endpoint, every byte percent-encoded', () => {
  const start = Buffer.from([0x05, ...Buffer.from('设备-7/a b'), 0x00]);
  const stop = Buffer.from([0x05, ...Buffer.from('设备-7/a b'), 0x01]);
  const path = tableScanPath('t', { startRow: start, stopRow: stop, columns: [Buffer.from('d')], maxVersions: 1 }, 16);
  assert.equal(
    path,
    `/t/*?startrow=%05${encodeURIComponent('设备-7/a b')}%00&endrow=%05${encodeURIComponent('设备-7/a b')}%01&column=d&maxversions=1&limit=16`,
  );
  assert.equal(tableScanPath('t', {}, 3), '/t/*?maxversions=1&limit=3', 'an open range');
  assert.match(
    tableScanPath('t', { timeRange: { from: 5, to: 9 }, cacheBlocks: false }, 1) ?? '',
    /starttime=5&endtime=9&maxversions=1&cacheblocks=false&limit=1$/,
  );
});

void test('not one request: a bound that is not UTF-8 (a reverse ts, a salt ≥ 0x80), a filter, a column the gateway would trim', () => {
  const reverseTs = Buffer.from([0x05, 0x61, 0x00, 0x7f, 0xff, 0xfe, 0x6c, 0xad, 0x1d, 0x6f, 0xff]);
  assert.equal(tableScanPath('t', { startRow: reverseTs }, 10), null);
  assert.equal(tableScanPath('t', { stopRow: Buffer.from([0x80, 0x61]) }, 10), null);
  assert.equal(tableScanPath('t', { filter: { type: 'FirstKeyOnlyFilter' } }, 10), null);
  assert.equal(tableScanPath('t', { columns: [Buffer.from('d:temp ')] }, 10), null);
  assert.equal(tableScanPath('t', { columns: [Buffer.from('d:x\u0001')] }, 10), null);
  assert.equal(
    tableScanPath('t', { columns: [Buffer.from('d:\u0000tags', 'latin1')] }, 10),
    '/t/*?column=d%3A%00tags&maxversions=1&limit=10',
    'a control character inside the column is kept',
  );
});
