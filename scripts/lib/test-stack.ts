// Which real stack the integration tests run against, in this order:
//   1. one named by the environment (TSI_HBASE_REST_URL + TSI_KAFKA_BROKERS [+ TSI_ADMIN_COMMAND]);
//   2. containers through testcontainers, when a Docker engine answers (TSI_STACK=docker forces it);
//   3. the local Docker-free stack (scripts/stack.ts), started if needed (TSI_STACK=local forces it).
// Whatever is chosen must come up; there is no "skip" outcome.
import type { StackEndpoints } from './stack-config.ts';
import { stackDown, stackUp } from './local-stack.ts';
import { stackStatus } from './local-stack.ts';

export interface TestStack extends StackEndpoints {
  readonly kind: 'external' | 'docker' | 'local';
  release(): Promise<void>;
}

export async function acquireTestStack(log: (m: string) => void): Promise<TestStack> {
  const env = process.env;
  const rest = env['TSI_HBASE_REST_URL'];
  const brokers = env['TSI_KAFKA_BROKERS'];
  if (rest !== undefined && rest !== '' && brokers !== undefined && brokers !== '') {
    const admin = env['TSI_ADMIN_COMMAND'];
    log(`using the stack named by the environment: REST ${rest}, Kafka ${brokers}`);
    return {
      kind: 'external',
      restUrl: rest,
      kafkaBrokers: brokers,
      zkQuorum: env['TSI_HBASE_ZK'] ?? '',
      adminCommand: admin === undefined || admin === '' ? [] : (JSON.parse(admin) as string[]),
      release: () => Promise.resolve(),
    };
  }
  const wanted = env['TSI_STACK'] ?? 'auto';
  if (wanted === 'docker' || wanted === 'auto') {
    const { dockerEngineAvailable, startDockerStack } = await import('../../test/support/docker-stack.ts');
    if (await dockerEngineAvailable()) {
      log('a Docker engine answers: starting Kafka and HBase with testcontainers');
      const s = await startDockerStack();
      return { kind: 'docker', zkQuorum: '', ...s, release: () => s.stop() };
    }
    if (wanted === 'docker') throw new Error('TSI_STACK=docker but no Docker engine answers');
    log('no Docker engine answers: using the local stack (Maven Central artifacts)');
  }
  const before = await stackStatus();
  const wasUp = before.services.every((s) => s.ready);
  const ep = await stackUp(log);
  return {
    kind: 'local',
    ...ep,
    // Leave a stack we found running alone; stop one we started unless asked to keep it.
    release: async () => {
      if (!wasUp && env['TSI_KEEP_STACK'] !== '1') await stackDown(log, { purge: false });
    },
  };
}
