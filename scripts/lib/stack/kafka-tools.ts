// Apache Kafka's own command-line tools (kafka-tools, same version as the local stack's broker), run
// through Java for independent checks: the consumer group's committed offsets and lag as the broker
// reports them. The jar comes from Maven Central through Maven, like the stack's jars.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { resolveJars } from './artifacts.ts';
import { pinnedVersions, stackLayout } from './config.ts';

const run = promisify(execFile);

export interface GroupPartition {
  readonly topic: string;
  readonly partition: number;
  /** committed offset (null when none) */
  readonly committed: number | null;
  readonly logEnd: number;
  readonly lag: number | null;
  /** the member that owns the partition now (null while the group has none for it, e.g. rebalancing) */
  readonly consumerId: string | null;
  readonly clientId: string | null;
}

/** org.apache.kafka:kafka-tools of the broker's version, from the Maven repository (fetched once). */
export async function kafkaToolsJar(log: (m: string) => void): Promise<string> {
  const version = pinnedVersions().kafka;
  const repo = process.env['MAVEN_REPO'] ?? join(homedir(), '.m2', 'repository');
  const jar = join(repo, 'org/apache/kafka/kafka-tools', version, `kafka-tools-${version}.jar`);
  if (!existsSync(jar)) {
    log(`fetching org.apache.kafka:kafka-tools:${version} with Maven`);
    await run('mvn', ['-q', 'dependency:get', `-Dartifact=org.apache.kafka:kafka-tools:${version}`], { maxBuffer: 16 << 20 });
  }
  return jar;
}

async function toolsClasspath(log: (m: string) => void): Promise<string> {
  const jar = await kafkaToolsJar(log);
  const lib = await resolveJars(stackLayout().cacheDir, 'kafka', log);
  return `${jar}:${lib}/*`;
}

/** `kafka-consumer-groups --describe --group G`: committed offset, log end, lag and owning member per partition. */
export async function describeGroup(brokers: string, group: string, log: (m: string) => void): Promise<GroupPartition[]> {
  const cp = await toolsClasspath(log);
  const { stdout } = await run(
    'java',
    ['-cp', cp, 'org.apache.kafka.tools.consumer.group.ConsumerGroupCommand', '--bootstrap-server', brokers, '--describe', '--group', group],
    { maxBuffer: 16 << 20 },
  );
  const rows: GroupPartition[] = [];
  for (const line of stdout.split('\n')) {
    const f = line.trim().split(/\s+/);
    // GROUP TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG CONSUMER-ID HOST CLIENT-ID
    if (f.length < 6 || f[0] !== group || !/^\d+$/.test(f[2] ?? '')) continue;
    const num = (s: string | undefined): number | null => (s === undefined || s === '-' ? null : Number(s));
    const text = (x: string | undefined): string | null => (x === undefined || x === '-' ? null : x);
    rows.push({
      topic: f[1] ?? '',
      partition: Number(f[2]),
      committed: num(f[3]),
      logEnd: Number(f[4]),
      lag: num(f[5]),
      consumerId: text(f[6]),
      clientId: text(f[8]),
    });
  }
  return rows;
}
