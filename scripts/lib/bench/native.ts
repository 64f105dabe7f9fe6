// The native anchor of the benchmark: the same rows the service writes (its own key and cell
// builders), dumped to a file and written by HBase's Java client (deploy/bench/NativeWriter.java:
// BufferedMutator, N threads, no REST). Compiled and cached like the table admin tool.
import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { RowCells } from '../../../src/hbase/index.ts';
import { compileJava, hbaseClasspath, resolveJars } from '../stack/artifacts.ts';
import { hbaseConfDir } from '../stack/services.ts';
import { stackLayout } from '../stack/config.ts';

const execFileP = promisify(execFile);

function u16(n: number): Buffer {
  const b = Buffer.allocUnsafe(2);
  b.writeUInt16BE(n);
  return b;
}

function record(r: RowCells): Buffer[] {
  const parts: Buffer[] = [u16(r.row.length), r.row, u16(r.cells.length)];
  for (const c of r.cells) {
    const ts = Buffer.allocUnsafe(8);
    ts.writeBigInt64BE(BigInt(c.timestamp ?? -1));
    const len = Buffer.allocUnsafe(4);
    len.writeUInt32BE(c.value.length);
    parts.push(u16(c.column.length), c.column, ts, len, c.value);
  }
  return parts;
}

/** Writes `rows` to `file` in NativeWriter's record format; returns the row count. */
export async function dumpRows(file: string, rows: Iterable<RowCells>): Promise<number> {
  const out = createWriteStream(file);
  let n = 0;
  for (const r of rows) {
    for (const part of record(r))
      if (!out.write(part))
        await new Promise<void>((res) => {
          out.once('drain', () => {
            res();
          });
        });
    n++;
  }
  await new Promise<void>((res, rej) => {
    out.once('error', rej);
    out.end(() => {
      res();
    });
  });
  return n;
}

export interface NativeResult {
  readonly rows: number;
  readonly cells: number;
  readonly seconds: number;
  readonly rowsPerSec: number;
}

/** Runs NativeWriter against the local stack (its hbase-site.xml names ZooKeeper). */
export async function writeNative(table: string, file: string, threads: number, log: (m: string) => void): Promise<NativeResult> {
  const layout = stackLayout();
  const lib = await resolveJars(layout.cacheDir, 'hbase', log);
  const classes = await compileJava(layout.cacheDir, lib, { srcRel: 'deploy/bench', prefix: 'bench-classes', what: 'the native benchmark writer' }, log);
  const cp = `${classes}:${hbaseClasspath(hbaseConfDir(layout), lib)}`;
  const { stdout } = await execFileP(
    'java',
    [
      '-Xmx2g',
      '-XX:+UseParallelGC',
      '-Dlog4j2.level=WARN',
      `-Dlog4j2.configurationFile=${join(hbaseConfDir(layout), 'log4j2.properties')}`,
      '-cp',
      cp,
      'NativeWriter',
      table,
      file,
      String(threads),
    ],
    { maxBuffer: 16 << 20, env: { ...process.env, HBASE_LOG_LEVEL: 'WARN' } },
  );
  const line = stdout.trim().split('\n').pop() ?? '';
  const r = JSON.parse(line) as { rows: number; cells: number; seconds: number };
  return { ...r, rowsPerSec: r.rows / r.seconds };
}
