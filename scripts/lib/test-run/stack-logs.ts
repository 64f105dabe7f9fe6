// The local stack's logs around a test group: where each ended when the group began, and what the
// group added that went wrong (log-digest.ts), for the runner to print under a failed group.
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { stackLayout } from '../stack/config.ts';
import { digestLog } from './log-digest.ts';

const LOGS = ['hbase.log', 'rest.log', 'kafka.log'] as const;
const MAX_READ = 64 * 1024 * 1024;

export type LogMarks = ReadonlyMap<string, number>;

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** Where each of the local stack's logs ends now. */
export function markStackLogs(): LogMarks {
  const dir = stackLayout().logDir;
  return new Map(LOGS.map((name) => [join(dir, name), sizeOf(join(dir, name))]));
}

function readFrom(file: string, from: number): string {
  const size = sizeOf(file);
  const start = size < from ? 0 : Math.max(from, size - MAX_READ); // a log started anew reads from its top
  const buf = Buffer.alloc(size - start);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, buf, 0, buf.length, start);
  } finally {
    closeSync(fd);
  }
  return buf.toString('utf8');
}

/** The lines to print: per log, the ERROR/WARN shapes written since `marks`. */
export function stackLogDigest(marks: LogMarks): string[] {
  const out: string[] = [];
  for (const [file, from] of marks) {
    const sigs = digestLog(readFrom(file, from));
    if (sigs.length === 0) continue;
    out.push(`${file}: ERROR/WARN lines written during the group, by shape (count, first one):`);
    for (const s of sigs) out.push(`  ${String(s.count).padStart(6)}  ${s.example}`);
  }
  return out;
}
