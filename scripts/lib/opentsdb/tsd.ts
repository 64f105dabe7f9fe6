// OpenTSDB 2.4.1's TSD for the benchmark: jars from Maven Central (deploy/local/opentsdb/pom.xml,
// resolved and cached like the stack's), its four tables created through the project's admin tool
// (the data table pre-split on the salt buckets), a configuration file, and the TSD as a child
// process talking to the local stack's HBase through ZooKeeper (asynchbase, no REST gateway).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TableAdminPort } from '../../../src/admin/index.ts';
import type { HBaseRestClient } from '../../../src/hbase/index.ts';
import { resolveJars } from '../stack/artifacts.ts';
import { stackLayout } from '../stack/config.ts';
import { freePort } from '../stack/probes.ts';
import { saltSplits, tsdConfig, tsdFamilies, type TsdTables } from './plan.ts';

const LOGBACK = `<configuration>
  <appender name="OUT" class="ch.qos.logback.core.ConsoleAppender">
    <encoder><pattern>%d{ISO8601} %-5level [%thread] %logger{0}: %msg%n</pattern></encoder>
  </appender>
  <root level="WARN"><appender-ref ref="OUT"/></root>
</configuration>
`;

/**
 * create_table.sh's tables through the admin tool. The tool's ensureTable takes one family; called
 * again with another family on the existing table it adds it (its reconcile step), so `tsdb-uid`
 * gets `id` and then `name` without changing the tool. Only the data table is pre-split.
 */
/** The families' codec: none (the benchmark's default), or production's (SNAPPY, FAST_DIFF: what a cluster runs OpenTSDB with). */
export type TsdCodec = 'none' | 'production';

export async function createTsdTables(admin: TableAdminPort, tables: TsdTables, buckets: number, codec: TsdCodec = 'none'): Promise<void> {
  const attrs = codec === 'production' ? { COMPRESSION: 'SNAPPY', DATA_BLOCK_ENCODING: 'FAST_DIFF' } : { COMPRESSION: 'NONE' };
  for (const t of tsdFamilies(tables)) {
    for (const family of t.families) {
      const r = await admin.ensureTable({
        table: t.table,
        family,
        splits: t.salted ? saltSplits(buckets) : [],
        familyAttrs: { VERSIONS: 1, BLOOMFILTER: 'ROW', ...attrs },
      });
      if (t.salted && r.splitsMatch !== true) throw new Error(`${t.table}: regions not split on the ${buckets} salt buckets (${r.regionCount} regions)`);
    }
  }
}

export async function dropTsdTables(rest: HBaseRestClient, tables: TsdTables, say: (m: string) => void): Promise<void> {
  for (const t of [tables.data, tables.uid, tables.tree, tables.meta]) {
    await rest.deleteTable(t, { ignoreMissing: true, deadlineMs: 120_000 }).catch((err: unknown) => {
      say(`could not drop ${t}: ${String(err)}`);
    });
  }
}

export interface Tsd {
  readonly pid: number;
  readonly url: string;
  /** SIGTERM, then SIGKILL after 15 s; resolves when it exited */
  stop(): Promise<void>;
}

/** Starts the TSD on `port` in `workDir` (config, static root, cache dir, log) and waits for /api/version. */
export async function startTsd(o: {
  cacheDir: string;
  workDir: string;
  zkQuorum: string;
  port: number;
  tables: TsdTables;
  buckets: number;
  heap: string;
  /** its row compaction (tsd.storage.enable_compaction): off unless asked */
  compaction?: boolean;
  say: (m: string) => void;
}): Promise<Tsd> {
  const lib = await resolveJars(o.cacheDir, 'opentsdb', o.say);
  const staticRoot = join(o.workDir, 'static');
  const httpCache = join(o.workDir, 'cache');
  for (const d of [staticRoot, httpCache]) mkdirSync(d, { recursive: true });
  const conf = join(o.workDir, 'opentsdb.conf');
  writeFileSync(
    conf,
    tsdConfig({
      port: o.port,
      zkQuorum: o.zkQuorum,
      tables: o.tables,
      buckets: o.buckets,
      staticRoot,
      cacheDir: httpCache,
      maxRequestBytes: 4 << 20,
      compaction: o.compaction === true,
    }),
  );
  const logback = join(o.workDir, 'logback.xml');
  writeFileSync(logback, LOGBACK);
  const args = [`-Xmx${o.heap}`, `-Dlogback.configurationFile=${logback}`, '-cp', `${lib}/*`, 'net.opentsdb.tools.TSDMain', `--config=${conf}`];
  const child: ChildProcess = spawn('java', args, { cwd: o.workDir, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const keep = (b: Buffer): void => {
    log = (log + b.toString()).slice(-8000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((res) => {
    child.once('exit', () => {
      res();
    });
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error('could not start the TSD (java)');
  const url = `http://127.0.0.1:${o.port}`;
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const t = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(t);
  };
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the TSD exited ${child.exitCode} during start-up:\n${log}`);
    const ok = await fetch(`${url}/api/version`, { signal: AbortSignal.timeout(2000) }).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the TSD did not answer on ${url} within 120 s:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return { pid, url, stop };
}

/**
 * A TSD for a benchmark beside the local stack: its tables made (with `codec`), then the TSD on a free
 * port (1 GB heap), its row compaction on when asked (`compaction`, production's default).
 */
export async function tsdBeside(o: {
  admin: TableAdminPort;
  cacheDir: string;
  workDir: string;
  zkQuorum: string;
  tables: TsdTables;
  buckets: number;
  codec?: TsdCodec;
  compaction?: boolean;
  say: (m: string) => void;
}): Promise<Tsd> {
  await createTsdTables(o.admin, o.tables, o.buckets, o.codec ?? 'none');
  return startTsd({
    cacheDir: o.cacheDir,
    workDir: o.workDir,
    zkQuorum: o.zkQuorum,
    port: await freePort(),
    tables: o.tables,
    buckets: o.buckets,
    heap: '1g',
    compaction: o.compaction === true,
    say: o.say,
  });
}

/** A TSD as production runs it beside the local stack: create_table.sh's tables with SNAPPY + FAST_DIFF, its row compaction on. */
export function productionTsd(o: {
  admin: TableAdminPort;
  workDir: string;
  zkQuorum: string;
  tables: TsdTables;
  buckets: number;
  say: (m: string) => void;
}): Promise<Tsd> {
  return tsdBeside({ ...o, cacheDir: stackLayout().cacheDir, codec: 'production', compaction: true });
}
