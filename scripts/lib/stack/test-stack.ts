// Which real stack the integration tests run against:
//   1. one named by the environment (TSI_HBASE_REST_URL + TSI_KAFKA_BROKERS [+ TSI_ADMIN_COMMAND]);
//   2. containers through testcontainers when asked (`npm run test:docker`, or TSI_STACK=docker):
//      the project's own images, built offline and cached (scripts/lib/images/specs.ts);
//   3. otherwise the local Docker-free stack (scripts/stack.ts), started if needed. A running Docker
//      engine does not change this default.
// Whatever is chosen must come up; there is no "skip" outcome.
import { endpointsFromEnv, type StackEndpoints } from './config.ts';
import { stackDown, stackUp } from './local-stack.ts';
import { stackStatus } from './local-stack.ts';

export interface TestStack extends StackEndpoints {
  readonly kind: 'external' | 'docker' | 'local';
  /** extra environment for the test processes (outage tests use it to reach the stack's processes) */
  readonly env: Readonly<Record<string, string>>;
  release(): Promise<void>;
}

export async function acquireTestStack(log: (m: string) => void, wanted: string = process.env['TSI_STACK'] ?? 'local'): Promise<TestStack> {
  const env = process.env;
  const named = endpointsFromEnv(env);
  if (named !== undefined) {
    log(`using the stack named by the environment: REST ${named.restUrl}, Kafka ${named.kafkaBrokers}`);
    return { kind: 'external', ...named, env: { TSI_STACK_KIND: 'external' }, release: () => Promise.resolve() };
  }
  if (wanted === 'docker') {
    const { dockerEngineAvailable, startDockerStack } = await import('./docker-stack.ts');
    if (!(await dockerEngineAvailable())) throw new Error('TSI_STACK=docker but no Docker engine answers (start one: scripts/docker-engine.sh start)');
    log('starting Kafka and HBase containers with testcontainers');
    const s = await startDockerStack(log);
    return {
      kind: 'docker',
      zkQuorum: '',
      ...s,
      env: { TSI_STACK_KIND: 'docker', TSI_DOCKER_HBASE: s.containers.hbase, TSI_DOCKER_KAFKA: s.containers.kafka },
      release: () => s.stop(),
    };
  }
  if (wanted !== 'local') throw new Error(`TSI_STACK=${wanted}: expected local or docker`);
  const before = await stackStatus();
  const wasUp = before.services.every((s) => s.ready);
  const ep = await stackUp(log);
  return {
    kind: 'local',
    ...ep,
    env: { TSI_STACK_KIND: 'local' },
    // Leave a stack we found running alone; stop one we started unless asked to keep it.
    release: async () => {
      if (!wasUp && env['TSI_KEEP_STACK'] !== '1') await stackDown(log, { purge: false });
    },
  };
}
