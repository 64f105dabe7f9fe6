// The storage phase's walk of HBase's root directory: store files per table and family, nothing else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hbaseRootDir, tableBytes } from '../../../scripts/lib/bench/store-bytes.ts';

function file(path: string, bytes: number): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, Buffer.alloc(bytes));
}

test('tableBytes sums the store files per family and skips what is not one', (t) => {
  const root = mkdtempSync(join(tmpdir(), 'store-bytes-'));
  t.after(() => {
    rmSync(root, { recursive: true, force: true });
  });
  const tbl = join(root, 'data', 'default', 'run_d');
  file(join(tbl, '.tabledesc', '.tableinfo.0000000001.600'), 600);
  file(join(tbl, '.tmp', 'x'), 50);
  // region 1: two families, one with two files (not yet discharged after a compaction)
  file(join(tbl, 'aaa', '.regioninfo'), 70);
  file(join(tbl, 'aaa', 'recovered.edits', '1.seqid'), 9);
  file(join(tbl, 'aaa', '.tmp', 'd', 'half-written'), 400);
  file(join(tbl, 'aaa', 'd', 'f1'), 1000);
  file(join(tbl, 'aaa', 'd', 'f2'), 200);
  file(join(tbl, 'aaa', 'd', '.f1.crc'), 16);
  file(join(tbl, 'aaa', 'p', 'f3'), 30);
  // region 2: one family, and an empty family directory
  file(join(tbl, 'bbb', '.regioninfo'), 70);
  file(join(tbl, 'bbb', 'd', 'f4'), 5);
  mkdirSync(join(tbl, 'bbb', 'p'));
  // another table and namespace do not count
  file(join(root, 'data', 'default', 'other', 'ccc', 'd', 'f5'), 7777);
  file(join(root, 'data', 'hbase', 'run_d', 'ddd', 'd', 'f6'), 8888);

  const got = tableBytes(root, 'run_d');
  assert.deepEqual(got, {
    table: 'run_d',
    regions: 2,
    bytes: 1235,
    families: {
      d: { bytes: 1205, files: 3, maxFilesPerRegion: 2 },
      p: { bytes: 30, files: 1, maxFilesPerRegion: 1 },
    },
  });
  assert.equal(tableBytes(root, 'run_d', 'hbase').bytes, 8888);
  assert.throws(() => tableBytes(root, 'missing'), /ENOENT/);
});

test('hbaseRootDir reads hbase.rootdir as a local directory', () => {
  const site = (v: string): string =>
    `<configuration>\n  <!-- <property><name>hbase.rootdir</name><value>file:///commented</value></property> -->\n  <property><name>hbase.rootdir</name><value>${v}</value></property>\n</configuration>`;
  assert.equal(hbaseRootDir(site('file:///work/main/.stack/data/hbase/hbase')), '/work/main/.stack/data/hbase/hbase');
  assert.equal(hbaseRootDir(site('/var/hbase')), '/var/hbase');
  assert.throws(() => hbaseRootDir(site('hdfs://nn:8020/hbase')), /not on the local filesystem/);
  assert.throws(() => hbaseRootDir('<configuration></configuration>'), /no hbase.rootdir/);
});
