// Brings the local stack up, reports on it and takes it down. Idempotent: `up` on a running stack
// only re-checks it; `down` on a stopped one does nothing.
import { mkdirSync, rmSync, unlinkSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { stackLayout, pinnedVersions, type StackEndpoints, type StackLayout } from './config.ts';
import { adminMainClass, compileAdminTool, hbaseClasspath, resolveJars, JDK17_OPENS } from './artifacts.ts';
import { hbaseConfDir, serviceSpecs, type Libs, type ServiceSpec } from './services.ts';
import { portFree, untilSound } from './probes.ts';
import { isAlive, readPid, requireCommand, sleep, startDetached, waitFor } from './proc.ts';

type Log = (msg: string) => void;

async function prepareLibs(layout: StackLayout, log: Log): Promise<Libs & { adminClasses: string }> {
  await requireCommand('java', ['-version'], 'Java 17 is required to run HBase and Kafka (e.g. apt-get install openjdk-17-jdk-headless)');
  mkdirSync(layout.cacheDir, { recursive: true });
  const [hbaseLib, kafkaLib] = await Promise.all([resolveJars(layout.cacheDir, 'hbase', log), resolveJars(layout.cacheDir, 'kafka', log)]);
  const adminClasses = await compileAdminTool(layout.cacheDir, hbaseLib, log);
  return { hbaseLib, kafkaLib, adminClasses };
}

/** Starts `spec` unless it already answers, and waits until it does; one that answers but cannot be used (`fault`) is restarted (probes.ts untilSound). */
async function startService(spec: ServiceSpec, log: Log): Promise<void> {
  await untilSound({
    what: `${spec.name} (see ${spec.logFile})`,
    started: () => startOnce(spec, log),
    fault: () => spec.fault?.() ?? Promise.resolve(undefined),
    restart: async (fault) => {
      const pid = readPid(spec.pidFile);
      log(`${spec.name}: answers but ${fault}; restarting it (pid ${String(pid)})`);
      if (pid === undefined || !isAlive(pid)) return;
      process.kill(pid, 'SIGKILL');
      await waitFor(`${spec.name} (pid ${pid}) to exit`, () => !isAlive(pid), { timeoutMs: 30_000 });
    },
  });
  log(`${spec.name}: ready`);
}

async function startOnce(spec: ServiceSpec, log: Log): Promise<void> {
  const pid = readPid(spec.pidFile);
  if (pid !== undefined && isAlive(pid)) {
    if (await spec.ready().catch(() => false)) {
      log(`${spec.name}: already running (pid ${pid})`);
      return;
    }
    log(`${spec.name}: running (pid ${pid}) but not answering yet; waiting`);
  } else {
    if (!(await portFree(spec.port))) {
      throw new Error(`${spec.name}: port 127.0.0.1:${spec.port} is taken by another process; stop it or choose another port with ${spec.portEnv}=<port>`);
    }
    const argv = await spec.prepare();
    const started = startDetached('java', argv, spec.logFile, join(spec.logFile, '..'));
    writeFileSync(spec.pidFile, String(started));
    log(`${spec.name}: started (pid ${started}), log ${spec.logFile}`);
  }
  const current = readPid(spec.pidFile) ?? 0;
  await waitFor(`${spec.name} on port ${spec.port}`, () => spec.ready(), {
    timeoutMs: spec.startTimeoutMs,
    alive: () => isAlive(current),
    logFile: spec.logFile,
  });
}

export function endpointsOf(layout: StackLayout, libs: Libs & { adminClasses: string }): StackEndpoints {
  const p = layout.ports;
  return {
    restUrl: `http://127.0.0.1:${p.rest}`,
    kafkaBrokers: `127.0.0.1:${p.kafka}`,
    zkQuorum: `127.0.0.1:${p.zk}`,
    adminCommand: [
      'java',
      // a short-lived client JVM: start fast, small heap
      '-XX:TieredStopAtLevel=1',
      '-XX:+UseSerialGC',
      '-Xmx256m',
      '--add-modules',
      'jdk.unsupported',
      ...JDK17_OPENS,
      '-cp',
      `${libs.adminClasses}:${hbaseClasspath(hbaseConfDir(layout), libs.hbaseLib)}`,
      adminMainClass(),
    ],
  };
}

export async function stackUp(log: Log): Promise<StackEndpoints> {
  const layout = stackLayout();
  for (const d of [layout.dataDir, layout.logDir, layout.runDir]) mkdirSync(d, { recursive: true });
  const libs = await prepareLibs(layout, log);
  const [hbase, rest, kafka] = serviceSpecs(layout, libs);
  if (hbase === undefined || rest === undefined || kafka === undefined) throw new Error('service table incomplete');
  // HBase then its gateway, Kafka alongside.
  const results = await Promise.allSettled([startService(hbase, log).then(() => startService(rest, log)), startService(kafka, log)]);
  const failed = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
  if (failed.length > 0) throw failed[0] instanceof Error ? failed[0] : new Error(String(failed[0]));
  const endpoints = endpointsOf(layout, libs);
  writeFileSync(layout.endpointsFile, JSON.stringify(endpoints, null, 2));
  return endpoints;
}

async function stopPid(name: string, pid: number, log: Log, graceMs: number): Promise<void> {
  const signal = (sig: NodeJS.Signals): void => {
    try {
      process.kill(-pid, sig); // the whole process group started detached
    } catch {
      try {
        process.kill(pid, sig);
      } catch {
        /* gone */
      }
    }
  };
  signal('SIGTERM');
  const deadline = Date.now() + graceMs;
  while (isAlive(pid) && Date.now() < deadline) await sleep(250);
  if (isAlive(pid)) {
    log(`${name}: did not stop within ${graceMs / 1000}s, killing`);
    signal('SIGKILL');
    while (isAlive(pid)) await sleep(100);
  }
}

export async function stackDown(log: Log, opts: { purge: boolean }): Promise<void> {
  const layout = stackLayout();
  const specs = serviceSpecs(layout, { hbaseLib: '', kafkaLib: '' });
  let stopped = 0;
  // Kafka first, then the gateway, then HBase itself.
  for (const spec of [...specs].reverse()) {
    const pid = readPid(spec.pidFile);
    if (pid !== undefined && isAlive(pid)) {
      await stopPid(spec.name, pid, log, spec.name === 'hbase' ? 60_000 : 30_000);
      log(`${spec.name}: stopped (pid ${pid})`);
      stopped++;
    }
    if (existsSync(spec.pidFile)) unlinkSync(spec.pidFile);
  }
  if (stopped === 0) log('stack: nothing was running');
  if (existsSync(layout.endpointsFile)) unlinkSync(layout.endpointsFile);
  if (opts.purge) {
    rmSync(layout.dataDir, { recursive: true, force: true });
    log(`stack: removed data in ${layout.dataDir}`);
  }
}

export interface ServiceStatus {
  readonly name: string;
  readonly pid: number | undefined;
  readonly running: boolean;
  readonly ready: boolean;
  readonly port: number;
}

export async function stackStatus(): Promise<{ services: ServiceStatus[]; versions: ReturnType<typeof pinnedVersions>; layout: StackLayout }> {
  const layout = stackLayout();
  const specs = serviceSpecs(layout, { hbaseLib: '', kafkaLib: '' });
  const services = await Promise.all(
    specs.map(async (s): Promise<ServiceStatus> => {
      const pid = readPid(s.pidFile);
      const running = pid !== undefined && isAlive(pid);
      const ready = running && (await s.ready().catch(() => false));
      return { name: s.name, pid, running, ready, port: s.port };
    }),
  );
  return { services, versions: pinnedVersions(), layout };
}
