// The three processes of the local stack: HBase (master + region server + ZooKeeper in one JVM),
// the HBase REST gateway, and a single-node KRaft Kafka broker. Each knows how to start and how to
// tell that it really answers.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot, stackPidFile, type StackLayout } from './config.ts';
import { JDK17_OPENS, hbaseClasspath, kafkaClasspath } from './artifacts.ts';
import { run } from './proc.ts';
import { hbaseRestAnswers, hbaseRestScannerModelFault, kafkaAnswers } from './probes.ts';

export interface ServiceSpec {
  readonly name: 'hbase' | 'rest' | 'kafka';
  readonly port: number;
  readonly portEnv: string;
  readonly logFile: string;
  readonly pidFile: string;
  /** prepares config/storage; returns the java argv */
  prepare(): Promise<string[]>;
  ready(): Promise<boolean>;
  /** once ready: why the process answers yet cannot be used (then it is restarted), or undefined */
  fault?(): Promise<string | undefined>;
  readonly startTimeoutMs: number;
}

export interface Libs {
  readonly hbaseLib: string;
  readonly kafkaLib: string;
}

export function hbaseConfDir(layout: StackLayout): string {
  return join(layout.runDir, 'hbase-conf');
}

function renderHBaseSite(layout: StackLayout): void {
  const tmpl = readFileSync(join(projectRoot, 'deploy/hbase/hbase-site.xml.tmpl'), 'utf8');
  const p = layout.ports;
  const values: Record<string, string> = {
    DATA_DIR: join(layout.dataDir, 'hbase'),
    BIND_HOST: '127.0.0.1',
    ZK_PORT: String(p.zk),
    MASTER_PORT: String(p.master),
    RS_PORT: String(p.regionServer),
    REST_PORT: String(p.rest),
  };
  const xml = tmpl.replace(/@([A-Z_]+)@/g, (whole, key: string) => values[key] ?? whole);
  if (/@[A-Z_]+@/.test(xml.replace(/<!--[\s\S]*?-->/g, ''))) throw new Error('hbase-site.xml.tmpl has a placeholder the local stack does not fill');
  const dir = hbaseConfDir(layout);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'hbase-site.xml'), xml);
  const log4j = join(projectRoot, 'deploy/hbase/log4j2.properties');
  if (existsSync(log4j)) writeFileSync(join(dir, 'log4j2.properties'), readFileSync(log4j));
}

/**
 * Heaps of the local stack's HBase (master + region server + ZooKeeper in one JVM) and REST gateway.
 * With 1g / 512m, a day of benchmarks (1M-row loads, tables made and dropped) left HBase's old
 * generation at 95 % with 124 full GCs (73 s of pauses) and the gateway's at 99.5 %: put latencies of
 * seconds that measured HBase's heap, not the service (BENCHMARKS.md). A region server of a real
 * cluster has several times these.
 */
const HBASE_HEAP = '3g';
const REST_HEAP = '1g';

function hbaseJava(layout: StackLayout, libs: Libs, proc: HBaseProcess): string[] {
  return hbaseJavaArgs({ confDir: hbaseConfDir(layout), logDir: layout.logDir, hbaseLib: libs.hbaseLib }, proc);
}

/** An HBase process: its heap, main class and log file name. */
export interface HBaseProcess {
  readonly heap: string;
  readonly mainClass: string;
  readonly logName: string;
}

/** The java argv of an HBase process (`<mainClass> start`) with its conf folder first on the classpath. */
export function hbaseJavaArgs(where: { confDir: string; logDir: string; hbaseLib: string }, proc: HBaseProcess, jvmProps: readonly string[] = []): string[] {
  const { heap, mainClass, logName } = proc;
  const conf = where.confDir;
  return [
    `-Xmx${heap}`,
    ...JDK17_OPENS,
    ...jvmProps,
    `-Dhbase.log.dir=${where.logDir}`,
    `-Dhbase.log.file=${logName}`,
    `-Dlog4j2.configurationFile=${join(conf, 'log4j2.properties')}`,
    '-Djava.net.preferIPv4Stack=true',
    '-cp',
    hbaseClasspath(conf, where.hbaseLib),
    mainClass,
    'start',
  ];
}

export function serviceSpecs(layout: StackLayout, libs: Libs): ServiceSpec[] {
  const p = layout.ports;
  const rest = `http://127.0.0.1:${p.rest}`;
  const kafkaData = join(layout.dataDir, 'kafka');
  const kafkaProps = join(layout.runDir, 'kafka-server.properties');
  return [
    {
      name: 'hbase',
      port: p.zk,
      portEnv: 'TSI_STACK_ZK_PORT',
      logFile: join(layout.logDir, 'hbase.log'),
      pidFile: stackPidFile('hbase', layout.runDir),
      startTimeoutMs: 180_000,
      prepare: () => {
        renderHBaseSite(layout);
        mkdirSync(join(layout.dataDir, 'hbase'), { recursive: true });
        return Promise.resolve(hbaseJava(layout, libs, { heap: HBASE_HEAP, mainClass: 'org.apache.hadoop.hbase.master.HMaster', logName: 'hbase.log' }));
      },
      // ZooKeeper answers "imok" once the in-process quorum is up; the master is checked through REST.
      ready: () => zkOk(p.zk),
    },
    {
      name: 'rest',
      port: p.rest,
      portEnv: 'TSI_STACK_REST_PORT',
      logFile: join(layout.logDir, 'rest.log'),
      pidFile: stackPidFile('rest', layout.runDir),
      startTimeoutMs: 180_000,
      prepare: () => Promise.resolve(hbaseJava(layout, libs, { heap: REST_HEAP, mainClass: 'org.apache.hadoop.hbase.rest.RESTServer', logName: 'rest.log' })),
      // Version alone answers before the master has finished initialising; the default
      // namespace and a live region server with hbase:meta mean tables can be created.
      ready: () => hbaseRestAnswers(rest),
      fault: () => hbaseRestScannerModelFault(rest),
    },
    {
      name: 'kafka',
      port: p.kafka,
      portEnv: 'TSI_STACK_KAFKA_PORT',
      logFile: join(layout.logDir, 'kafka.log'),
      pidFile: stackPidFile('kafka', layout.runDir),
      startTimeoutMs: 120_000,
      prepare: async () => {
        writeFileSync(kafkaProps, kafkaServerProperties(kafkaData, p.kafka, p.kafkaController));
        const cp = kafkaClasspath(libs.kafkaLib);
        if (!existsSync(join(kafkaData, 'meta.properties'))) {
          mkdirSync(kafkaData, { recursive: true });
          const uuid = (await run('java', ['-cp', cp, 'kafka.tools.StorageTool', 'random-uuid'], { what: 'kafka random-uuid' })).trim().split('\n').pop() ?? '';
          await run('java', ['-cp', cp, 'kafka.tools.StorageTool', 'format', '-t', uuid, '-c', kafkaProps], { what: 'kafka storage format' });
        }
        return [
          '-Xmx512m',
          `-Dlog4j.configuration=file:${join(projectRoot, 'deploy/local/kafka/log4j.properties')}`,
          '-Djava.net.preferIPv4Stack=true',
          '-cp',
          cp,
          'kafka.Kafka',
          kafkaProps,
        ];
      },
      ready: () => kafkaAnswers(`127.0.0.1:${p.kafka}`),
    },
  ];
}

function kafkaServerProperties(dataDir: string, port: number, controllerPort: number): string {
  return [
    ...kraftSingleNode(dataDir, controllerPort),
    `listeners=PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}`,
    `advertised.listeners=PLAINTEXT://127.0.0.1:${port}`,
    'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
    'inter.broker.listener.name=PLAINTEXT',
    '',
  ].join('\n');
}

/** server.properties lines of a one-node KRaft broker+controller on 127.0.0.1 (listeners left to the caller). */
export function kraftSingleNode(dataDir: string, controllerPort: number): string[] {
  return [
    'process.roles=broker,controller',
    'node.id=1',
    `controller.quorum.voters=1@127.0.0.1:${controllerPort}`,
    'controller.listener.names=CONTROLLER',
    `log.dirs=${dataDir}`,
    'num.partitions=1',
    'offsets.topic.replication.factor=1',
    'offsets.topic.num.partitions=4',
    'transaction.state.log.replication.factor=1',
    'transaction.state.log.min.isr=1',
    'group.initial.rebalance.delay.ms=0',
    'auto.create.topics.enable=false',
  ];
}

async function zkOk(port: number): Promise<boolean> {
  const { connect } = await import('node:net');
  return new Promise((resolvePromise) => {
    const sock = connect({ host: '127.0.0.1', port }, () => sock.write('ruok'));
    let data = '';
    sock.setTimeout(2000, () => {
      sock.destroy();
      resolvePromise(false);
    });
    sock.on('data', (d: Buffer) => (data += d.toString()));
    sock.on('error', () => {
      resolvePromise(false);
    });
    sock.on('close', () => {
      resolvePromise(data.includes('imok'));
    });
  });
}
