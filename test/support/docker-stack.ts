// Kafka and HBase as containers (testcontainers) for the integration tests, chosen by
// scripts/lib/test-stack.ts when a Docker engine answers. Kafka is the official apache/kafka image in
// single-node KRaft mode; HBase is this project's image (deploy/hbase/Dockerfile, built here).
//
// Kafka's advertised listener must name the host port Docker picked, which is only known after the
// container has started. So, as testcontainers' own KafkaContainer does, the container starts a
// shell that waits for a starter script; once the mapped port is known the script is copied in with
// KAFKA_ADVERTISED_LISTENERS set, then a marker file releases the shell into the image's normal
// start (/etc/kafka/docker/run). No fixed host ports are used.
import { resolve } from 'node:path';
import { hbaseRestAnswers, kafkaAnswers } from '../../scripts/lib/probes.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { GenericContainer, Wait, getContainerRuntimeClient, type StartedTestContainer } from 'testcontainers';

const KAFKA_IMAGE = 'apache/kafka:3.9.1';
/** Tag of the locally built HBase image; kept between runs so Docker's layer cache makes rebuilds cheap. */
const HBASE_IMAGE = 'tsingest-hbase:2.6.1-test';
/** deploy/ is the build context: the image also compiles deploy/admin (table-admin). */
const DEPLOY_DIR = resolve(import.meta.dirname, '..', '..', 'deploy');

const KAFKA_HOST_PORT = 9092; // PLAINTEXT, advertised as <docker host>:<mapped port>
const KAFKA_BROKER_PORT = 9093; // inter-broker, inside the container
const KAFKA_CONTROLLER_PORT = 9094;
const KAFKA_WAITING = 'tsingest: waiting for the Kafka starter script';
const KAFKA_STARTER = '/tmp/tsingest-kafka-start.sh';
const KAFKA_RELEASE = '/tmp/tsingest-kafka-start.ready';
const HBASE_REST_PORT = 8080;

const ENGINE_PROBE_MS = 3000;
const KAFKA_READY_MS = 120_000;
const HBASE_START_MS = 300_000;
const HBASE_READY_MS = 180_000;

export interface DockerStack {
  readonly restUrl: string;
  readonly kafkaBrokers: string;
  /** argv prefix that runs TableAdmin inside the HBase container: one JSON request on stdin */
  readonly adminCommand: string[];
  stop(): Promise<void>;
}

/** True when a container engine answers; false quickly (≤ ENGINE_PROBE_MS) when none does. */
export async function dockerEngineAvailable(timeoutMs: number = ENGINE_PROBE_MS): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolveTimeout) => {
    timer = setTimeout(() => { resolveTimeout(false); }, timeoutMs);
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

/** Starts Kafka and HBase, waits until both really answer, and returns how to reach them. */
export async function startDockerStack(): Promise<DockerStack> {
  const [kafka, hbase] = await Promise.allSettled([startKafka(), startHBase()]);
  if (kafka.status === 'rejected' || hbase.status === 'rejected') {
    const started = [kafka, hbase].flatMap((r) => (r.status === 'fulfilled' ? [r.value.container] : []));
    await Promise.allSettled(started.map((c) => c.stop()));
    const reasons = [kafka, hbase].flatMap((r): unknown[] => (r.status === 'rejected' ? [r.reason] : []));
    throw new AggregateError(reasons, `docker stack did not start: ${reasons.map(describe).join('; ')}`);
  }
  const containers = [kafka.value.container, hbase.value.container];
  let stopped: Promise<void> | undefined;
  return {
    restUrl: hbase.value.restUrl,
    kafkaBrokers: kafka.value.brokers,
    adminCommand: ['docker', 'exec', '-i', hbase.value.container.getId(), 'table-admin'],
    stop: () => {
      stopped ??= Promise.allSettled(containers.map((c) => c.stop())).then((results) => {
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
  const container = await new GenericContainer(KAFKA_IMAGE)
    .withExposedPorts(KAFKA_HOST_PORT)
    .withEnvironment({
      CLUSTER_ID: 'fptaeH7mRbG4kiwIeACooA',
      KAFKA_NODE_ID: '1',
      KAFKA_PROCESS_ROLES: 'broker,controller',
      KAFKA_LISTENERS: `PLAINTEXT://0.0.0.0:${KAFKA_HOST_PORT},BROKER://0.0.0.0:${KAFKA_BROKER_PORT},CONTROLLER://0.0.0.0:${KAFKA_CONTROLLER_PORT}`,
      KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: 'PLAINTEXT:PLAINTEXT,BROKER:PLAINTEXT,CONTROLLER:PLAINTEXT',
      KAFKA_INTER_BROKER_LISTENER_NAME: 'BROKER',
      KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
      KAFKA_CONTROLLER_QUORUM_VOTERS: `1@localhost:${KAFKA_CONTROLLER_PORT}`,
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
    .withCommand([
      '/bin/bash',
      '-c',
      `echo '${KAFKA_WAITING}'; while [ ! -f ${KAFKA_RELEASE} ]; do sleep 0.1; done; exec /bin/bash ${KAFKA_STARTER}`,
    ])
    .withWaitStrategy(Wait.forLogMessage(KAFKA_WAITING))
    .withStartupTimeout(60_000)
    .start();
  try {
    const host = container.getHost();
    const port = container.getMappedPort(KAFKA_HOST_PORT);
    const brokers = `${host}:${port}`;
    const advertised = `PLAINTEXT://${brokers},BROKER://localhost:${KAFKA_BROKER_PORT}`;
    const script = ['#!/bin/bash', `export KAFKA_ADVERTISED_LISTENERS='${advertised}'`, 'exec /etc/kafka/docker/run', ''].join('\n');
    // Two copies: the marker only appears once the script is complete (each copy is synchronous).
    await container.copyContentToContainer([{ content: script, target: KAFKA_STARTER, mode: 0o755 }]);
    await container.copyContentToContainer([{ content: 'go\n', target: KAFKA_RELEASE, mode: 0o644 }]);
    await waitUntil(`Kafka at ${brokers}`, KAFKA_READY_MS, () => kafkaAnswers(brokers), container);
    return { container, brokers };
  } catch (e) {
    await container.stop().catch(() => undefined);
    throw e;
  }
}

async function startHBase(): Promise<Started & { restUrl: string }> {
  const image = await GenericContainer.fromDockerfile(DEPLOY_DIR, 'hbase/Dockerfile').build(HBASE_IMAGE, { deleteOnExit: false });
  const container = await image
    .withExposedPorts(HBASE_REST_PORT)
    .withEnvironment({ HBASE_MASTER_HEAP: '1g', HBASE_REST_HEAP: '512m' })
    .withWaitStrategy(Wait.forHttp('/version/cluster', HBASE_REST_PORT).forStatusCode(200))
    .withStartupTimeout(HBASE_START_MS)
    .start();
  try {
    const restUrl = `http://${container.getHost()}:${container.getMappedPort(HBASE_REST_PORT)}`;
    await waitUntil(`HBase REST at ${restUrl}`, HBASE_READY_MS, () => hbaseRestAnswers(restUrl), container);
    return { container, restUrl };
  } catch (e) {
    await container.stop().catch(() => undefined);
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
      stream.on('end', () => { done(); });
      stream.on('error', () => { done(); });
      setTimeout(() => { done(); }, 2000).unref();
    });
    return Buffer.concat(chunks).toString('utf8');
  } catch (e) {
    return `(logs unavailable: ${describe(e)})`;
  }
}

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
