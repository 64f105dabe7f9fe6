// Bytes on disk of a table's store files, read from HBase's root directory on the local filesystem
// (the local stack runs HBase standalone on `file://`): `<root>/data/<namespace>/<table>/<region>/<family>/<hfile>`.
// Only store files count: a region's `.regioninfo`, `recovered.edits` and `.tmp`, a table's
// `.tabledesc` and `.tmp`, and any dot-file in a family directory are skipped. The benchmark's
// storage phase (series-storage.ts) reads it after a flush and a major compaction of every table.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One column family of a table: its store files' bytes, how many files, and the most files one region holds. */
export interface FamilyBytes {
  readonly bytes: number;
  readonly files: number;
  readonly maxFilesPerRegion: number;
}

export interface TableBytes {
  readonly table: string;
  readonly regions: number;
  readonly bytes: number;
  readonly families: Readonly<Record<string, FamilyBytes>>;
}

/** hbase.rootdir of an hbase-site.xml as a local directory; throws unless it is a `file:` URL or an absolute path. */
export function hbaseRootDir(siteXml: string): string {
  const xml = siteXml.replace(/<!--[\s\S]*?-->/g, '');
  const m = /<name>\s*hbase\.rootdir\s*<\/name>\s*<value>\s*([^<]*?)\s*<\/value>/.exec(xml);
  const v = m?.[1];
  if (v === undefined || v === '') throw new Error('hbase-site.xml names no hbase.rootdir');
  if (v.startsWith('file:')) return fileURLToPath(v);
  if (v.startsWith('/')) return v;
  throw new Error(`hbase.rootdir ${v} is not on the local filesystem: its store files cannot be walked here`);
}

const skipped = (name: string): boolean => name.startsWith('.') || name === 'recovered.edits';

function dirs(path: string): string[] {
  return readdirSync(path, { withFileTypes: true })
    .filter((d) => d.isDirectory() && !skipped(d.name))
    .map((d) => d.name);
}

/** The store files of `table` (namespace `default` unless named) under HBase's root directory `root`. */
export function tableBytes(root: string, table: string, namespace = 'default'): TableBytes {
  const tableDir = join(root, 'data', namespace, table);
  const families: Record<string, { bytes: number; files: number; maxFilesPerRegion: number }> = {};
  const regions = dirs(tableDir);
  let bytes = 0;
  for (const region of regions) {
    for (const family of dirs(join(tableDir, region))) {
      const f = (families[family] ??= { bytes: 0, files: 0, maxFilesPerRegion: 0 });
      let inRegion = 0;
      for (const e of readdirSync(join(tableDir, region, family), { withFileTypes: true })) {
        if (!e.isFile() || skipped(e.name)) continue;
        const size = statSync(join(tableDir, region, family, e.name)).size;
        f.bytes += size;
        f.files++;
        inRegion++;
        bytes += size;
      }
      f.maxFilesPerRegion = Math.max(f.maxFilesPerRegion, inRegion);
    }
  }
  return { table, regions: regions.length, bytes, families };
}
