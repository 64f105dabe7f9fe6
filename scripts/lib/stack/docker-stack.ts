// Kafka and HBase as containers (testcontainers) for the integration tests: `npm run test:docker`
// (TSI_STACK=docker). The images are this project's own (`npm run images`: built offline from Debian
// packages and the local stack's jar sets, cached by content hash, so this costs seconds when nothing
// changed). Containers publish their ports on 127.0.0.1 only.
//
// There is no testcontainers reaper here (its image cannot be pulled; TESTCONTAINERS_RYUK_DISABLED),
// so every container is registered for removal where it is created: stop() removes them, and so do
// exit/SIGINT/SIGTERM handlers of this process. They also carry the label org.tsingest.test=1, which
// `.ci/run` uses to remove leftovers of a run that was killed.
//
// Kafka's advertised listener must name the host port Docker picked, which is only known after the
// container has started. So, as testcontainers' own KafkaContainer does, the container starts a
// shell that waits for a starter script; once the mapped port is known the script is copied in with
// KAFKA_ADVERTISED_LISTENERS set, then a marker file releases the shell into the image's entrypoint.
import { execFileSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { GenericContainer, Wait, getContainerRuntimeClient, type StartedTestContainer } from 'testcontainers';
import { hbaseRestAnswers, hbaseRestScannerModelFault, kafkaAnswers, untilSound } from './probes.ts';
import { buildImages, imageTags } from '../images/specs.ts';

// Ports are published on 127.0.0.1 only, and that is where the host reaches them. Without this,
// testcontainers sees /.dockerenv (present on these VMs) and dials the bridge gateway instead.
process.env['TESTCONTAINERS_HOST_OVERRIDE'] ??= '127.0.0.1';
// No reaper: its image cannot be pulled here (cleanup is registered per container below).
process.env['TESTCONTAINERS_RYUK_DISABLED'] ??= 'true';

const KAFKA_HOST_PORT = 9092; // PLAINTEXT, advertised as 127.0.0.1:<mapped port>
const KAFKA_BROKER_PORT = 9093; // inter-broker, inside the container
const KAFKA_CONTROLLER_PORT = 9094;
const KAFKA_WAITING = 'tsingest: waiting for the Kafka starter script';
const KAFKA_STARTER = '/tmp/tsingest-kafka-start.sh';
const KAFKA_RELEASE = '/tmp/tsingest-kafka-start.ready';
const HBASE_REST_PORT = 8080;
export const TEST_LABEL = 'org.tsingest.test';

const ENGINE_PROBE_MS = 3000;
const KAFKA_READY_MS = 120_000;
const HBASE_START_MS = 300_000;
const HBASE_READY_MS = 180_000;

export interface DockerStack {
  readonly restUrl: string;
  readonly kafkaBrokers: string;
  /** argv prefix that runs TableAdmin inside the HBase container: one JSON request on stdin */
  readonly adminCommand: string[];
  /** container ids, for outage tests (test/support/stack-control.ts drives `tsi-ctl` in them) */
  readonly containers: { readonly hbase: string; readonly kafka: string };
  stop(): Promise<void>;
}

/** True when a container engine answers; false quickly (≤ ENGINE_PROBE_MS) when none does. */
export async function dockerEngineAvailable(timeoutMs: number = ENGINE_PROBE_MS): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolveTimeout) => {
    timer = setTimeout(() => {
      resolveTimeout(false);
    }, timeoutMs);
    timer.unref();
  });
  const probe = getContainerRuntimeClient().then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([probe, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * testcontainers publishes on every interface (HostIp ""); these containers publish on 127.0.0.1
 * only. Call after withExposedPorts.
 */
class LoopbackContainer extends GenericContainer {
  loopbackOnly(): this {
    const bindings = this.hostConfig.PortBindings as Record<string, { HostPort?: string; HostIp?: string }[]> | undefined;
    for (const list of Object.values(bindings ?? {})) for (const b of list) b.HostIp = '127.0.0.1';
    return this;
  }
}

// --- cleanup without a reaper --------------------------------------------------------------------
const live = new Set<string>();
let handlersInstalled = false;

function removeNow(): void {
  for (const id of live) {
    try {
      execFileSync('docker', ['rm', '-f', '-v', id], { stdio: 'ignore', timeout: 30_000 });
    } catch {
      // already gone
    }
  }
  live.clear();
}

function register(container: StartedTestContainer): StartedTestContainer {
  live.add(container.getId());
  if (!handlersInstalled) {
    handlersInstalled = true;
    process.once('exit', removeNow);
    for (const sig of ['SIGINT', 'SIGTERM'] as const) {
      process.once(sig, () => {
        removeNow();
        process.kill(process.pid, sig);
      });
    }
  }
  return container;
}

async function remove(container: StartedTestContainer): Promise<void> {
  await container.stop({ remove: true, removeVolumes: true });
  live.delete(container.getId());
}

/** Builds (or finds cached) images, starts Kafka and HBase, waits until both really answer. */
export async function startDockerStack(log: (m: string) => void = () => undefined): Promise<DockerStack> {
  const t0 = Date.now();
  await buildImages({ upstream: process.env['TSI_IMAGES_UPSTREAM'] === '1', force: false, only: ['hbase', 'kafka'] }, log);
  log(`images ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const [kafka, hbase] = await Promise.allSettled([startKafka(), startHBase()]);
  if (kafka.status === 'rejected' || hbase.status === 'rejected') {
    const started = [kafka, hbase].flatMap((r) => (r.status === 'fulfilled' ? [r.value.container] : []));
    await Promise.allSettled(started.map(remove));
    const reasons = [kafka, hbase].flatMap((r): unknown[] => (r.status === 'rejected' ? [r.reason] : []));
    throw new AggregateError(reasons, `docker stack did not start: ${reasons.map(describe).join('; ')}`);
  }
  const containers = [kafka.value.container, hbase.value.container];
  let stopped: Promise<void> | undefined;
  return {
    restUrl: hbase.value.restUrl,
    kafkaBrokers: kafka.value.brokers,
    adminCommand: ['docker', 'exec', '-i', hbase.value.container.getId(), 'table-admin'],
    containers: { hbase: hbase.value.container.getId(), kafka: kafka.value.container.getId() },
    stop: () => {
      stopped ??= Promise.allSettled(containers.map(remove)).then((results) => {
        const failed = results.flatMap((r): unknown[] => (r.status === 'rejected' ? [r.reason] : []));
        if (failed.length > 0) throw new AggregateError(failed, `stopping the docker stack: ${failed.map(describe).join('; ')}`);
      });
      return stopped;
    },
  };
}

interface Started {
  readonly container: StartedTestContainer;
}

async function startKafka(): Promise<Started & { brokers: string }> {
  const container = register(
    await new LoopbackContainer(imageTags().kafka)
      .withExposedPorts(KAFKA_HOST_PORT)
      .loopbackOnly()
      .withLabels({ [TEST_LABEL]: '1' })
      .withEnvironment({
        CLUSTER_ID: 'fptaeH7mRbG4kiwIeACooA',
        KAFKA_NODE_ID: '1',
        KAFKA_PROCESS_ROLES: 'broker,controller',
        KAFKA_LISTENERS: `PLAINTEXT://0.0.0.0:${KAFKA_HOST_PORT},BROKER://0.0.0.0:${KAFKA_BROKER_PORT},CONTROLLER://0.0.0.0:${KAFKA_CONTROLLER_PORT}`,
        KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: 'PLAINTEXT:PLAINTEXT,BROKER:PLAINTEXT,CONTROLLER:PLAINTEXT',
        KAFKA_INTER_BROKER_LISTENER_NAME: 'BROKER',
        KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
        KAFKA_CONTROLLER_QUORUM_VOTERS: `1@localhost:${KAFKA_CONTROLLER_PORT}`,
        KAFKA_LOG_DIRS: '/var/lib/kafka/data',
        // Same broker settings as docker-compose.yml and the local stack.
        KAFKA_NUM_PARTITIONS: '1',
        KAFKA_AUTO_CREATE_TOPICS_ENABLE: 'false',
        KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '1',
        KAFKA_OFFSETS_TOPIC_NUM_PARTITIONS: '4',
        KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '1',
        KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: '1',
        KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
        KAFKA_HEAP_OPTS: '-Xms256m -Xmx512m',
      })
      .withEntrypoint(['/bin/bash', '-c'])
      .withCommand([`echo '${KAFKA_WAITING}'; while [ ! -f ${KAFKA_RELEASE} ]; do sleep 0.1; done; exec /bin/bash ${KAFKA_STARTER}`])
      .withWaitStrategy(Wait.forLogMessage(KAFKA_WAITING))
      .withStartupTimeout(60_000)
      .start(),
  );
  try {
    const brokers = `127.0.0.1:${container.getMappedPort(KAFKA_HOST_PORT)}`;
    const advertised = `PLAINTEXT://${brokers},BROKER://localhost:${KAFKA_BROKER_PORT}`;
    const script = ['#!/bin/bash', `export KAFKA_ADVERTISED_LISTENERS='${advertised}'`, 'exec /usr/local/bin/kafka-entrypoint', ''].join('\n');
    // Two copies: the marker only appears once the script is complete (each copy is synchronous).
    await container.copyContentToContainer([{ content: script, target: KAFKA_STARTER, mode: 0o755 }]);
    await container.copyContentToContainer([{ content: 'go\n', target: KAFKA_RELEASE, mode: 0o644 }]);
    await waitUntil(`Kafka at ${brokers}`, KAFKA_READY_MS, () => kafkaAnswers(brokers), container);
    return { container, brokers };
  } catch (e) {
    await remove(container).catch(() => undefined);
    throw e;
  }
}

async function startHBase(): Promise<Started & { restUrl: string }> {
  const container = register(
    await new LoopbackContainer(imageTags().hbase)
      .withExposedPorts(HBASE_REST_PORT)
      .loopbackOnly()
      .withLabels({ [TEST_LABEL]: '1' })
      .withEnvironment({ HBASE_MASTER_HEAP: '1g', HBASE_REST_HEAP: '512m' })
      .withWaitStrategy(Wait.forHttp('/version/cluster', HBASE_REST_PORT).forStatusCode(200))
      .withStartupTimeout(HBASE_START_MS)
      .start(),
  );
  try {
    const restUrl = `http://127.0.0.1:${container.getMappedPort(HBASE_REST_PORT)}`;
    await untilSound({
      what: `HBase REST at ${restUrl}`,
      started: () => waitUntil(`HBase REST at ${restUrl}`, HBASE_READY_MS, () => hbaseRestAnswers(restUrl), container),
      fault: () => hbaseRestScannerModelFault(restUrl),
      // the image's supervisor restarts one process (deploy/container/tsi-ctl)
      restart: async () => {
        await container.exec(['tsi-ctl', 'rest', 'kill']);
        await container.exec(['tsi-ctl', 'rest', 'start']);
      },
    });
    return { container, restUrl };
  } catch (e) {
    await remove(container).catch(() => undefined);
    throw e;
  }
}

async function waitUntil(what: string, timeoutMs: number, check: () => Promise<boolean>, container: StartedTestContainer): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await sleep(1000);
  }
  throw new Error(`${what} did not answer within ${timeoutMs / 1000} s; last container log lines:\n${await logTail(container, 40)}`);
}

async function logTail(container: StartedTestContainer, lines: number): Promise<string> {
  try {
    const stream = await container.logs({ tail: lines });
    const chunks: Buffer[] = [];
    await new Promise<void>((done) => {
      stream.on('data', (c: Buffer | string) => chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(c)));
      stream.on('end', () => {
        done();
      });
      stream.on('error', () => {
        done();
      });
      setTimeout(() => {
        done();
      }, 2000).unref();
    });
    return Buffer.concat(chunks).toString('utf8');
  } catch (e) {
    return `(logs unavailable: ${describe(e)})`;
  }
}

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
