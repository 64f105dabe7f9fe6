// Rollup bucket ownership through Kafka's group membership (docs/ROLLUPS.md, "Ownership"): every
// runner of one cluster joins the consumer group `rollup.owners.groupId` on the small topic
// `rollup.owners.topic`, which has one partition per salt bucket and never holds a message. The
// group coordinator assigns the partitions; the runner that holds partition p works on bucket p's
// markers. A member that dies is dropped after its session timeout, and one that joins gets a share at
// the next rebalance, both without a restart of the others. While a rebalance runs, a member owns
// nothing (it stops taking buckets at the next page) until its new assignment arrives.
import type { Consumer, Kafka } from 'kafkajs';
import type { Logger } from 'pino';
import { bucketsOfPartitions, type BucketOwnership } from '../rollup/ownership.ts';
import type { Config } from '../runtime/config.ts';
import { StartupError } from './service-settings.ts';

export interface RollupOwnersOptions {
  readonly kafka: Kafka;
  readonly topic: string;
  readonly groupId: string;
  /** salt buckets B: the topic is created with B partitions */
  readonly buckets: number;
  readonly sessionTimeoutMs: number;
  readonly heartbeatIntervalMs: number;
  readonly log: Logger;
  /** after each change of the owned set (a new assignment, or nothing owned while rebalancing) */
  readonly onChange?: (owned: ReadonlySet<number>) => void;
  /** told at every join of the group (the first, and each after a rebalance) */
  readonly onJoin?: () => void;
}

const NONE: ReadonlySet<number> = new Set();
/** how long stop() waits for the ownership consumer to leave its group */
const DISCONNECT_WAIT_MS = 3000;

export class KafkaBucketOwners implements BucketOwnership {
  readonly #o: RollupOwnersOptions;
  readonly #consumer: Consumer;
  readonly #stopped = new AbortController();
  #owned: ReadonlySet<number> = NONE;
  #partitions = 0;
  #joined = false;
  /** holds the current assignment (joined, and no rebalance started since) */
  #settled = false;
  #generation = 0;
  #waiters: (() => void)[] = [];
  #starting: Promise<void> | undefined;

  constructor(o: RollupOwnersOptions) {
    this.#o = o;
    // rebalanceTimeout: how long the coordinator waits for members to rejoin (they do within a heartbeat)
    this.#consumer = o.kafka.consumer({
      groupId: o.groupId,
      sessionTimeout: o.sessionTimeoutMs,
      rebalanceTimeout: o.sessionTimeoutMs,
      heartbeatInterval: o.heartbeatIntervalMs,
      maxWaitTimeInMs: Math.min(5000, o.heartbeatIntervalMs),
      allowAutoTopicCreation: false,
      // kafkajs restarts a crashed consumer; not once stopped (a stop that timed out leaves it to finish alone)
      retry: { restartOnFailure: () => Promise.resolve(!this.#stopped.signal.aborted) },
    });
    const c = this.#consumer;
    c.on(c.events.GROUP_JOIN, (e) => {
      const partitions = e.payload.memberAssignment[o.topic] ?? [];
      this.#set(bucketsOfPartitions(partitions, this.#partitions, o.buckets));
      o.log.info({ buckets: [...this.#owned] }, 'rollup buckets assigned');
      o.onJoin?.();
      this.#joined = true;
      this.#settled = true;
      for (const w of this.#waiters.splice(0)) w();
    });
    c.on(c.events.REBALANCING, () => {
      this.#settled = false;
      this.#set(NONE);
    });
    c.on(c.events.CRASH, (e) => {
      this.#settled = false;
      this.#set(NONE);
      o.log.warn({ err: e.payload.error, restart: e.payload.restart }, 'rollup ownership consumer crashed; it owns no bucket until it rejoins');
    });
  }

  /**
   * Makes sure the topic exists (B partitions) and joins the group, in the background, again every
   * 5 s while Kafka refuses; the buckets come with the first assignment (ready()).
   */
  start(): void {
    this.#starting ??= (async () => {
      const signal = this.#stopped.signal;
      while (!signal.aborted) {
        try {
          this.#partitions = await ensureTopic(this.#o.kafka, this.#o.topic, this.#o.buckets, this.#o.log);
          await this.#consumer.connect();
          await this.#consumer.subscribe({ topic: this.#o.topic, fromBeginning: false });
          // the topic never holds a message: the consumer only keeps its membership (heartbeats)
          await this.#consumer.run({ eachBatch: async () => {} });
          return;
        } catch (err) {
          this.#o.log.warn({ err, topic: this.#o.topic }, 'rollup ownership: joining the group failed; retrying in 5 s (no bucket owned meanwhile)');
          await this.#consumer.disconnect().catch(() => undefined);
          await new Promise((r) => setTimeout(r, 5000).unref());
        }
      }
    })();
  }

  owned(): ReadonlySet<number> {
    return this.#owned;
  }

  /** the group has given this member an assignment (possibly of no bucket) */
  get joined(): boolean {
    return this.#joined;
  }

  /** grows at every change of the owned set: a run that saw it unchanged worked one whole assignment */
  get generation(): number {
    return this.#generation;
  }

  /** Resolves once this member holds a current assignment: joined, no rebalance under way (or when `signal` aborts). */
  ready(signal?: AbortSignal): Promise<void> {
    if (this.#settled || signal?.aborted === true) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        signal?.removeEventListener('abort', done);
        resolve();
      };
      this.#waiters.push(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  /**
   * Leaves the group (its buckets go to the others at once). Idempotent. Bounded: a join in progress
   * (kafkajs's run() and disconnect() wait for it) can be held by the coordinator until a dead
   * member's session ends; past DISCONNECT_WAIT_MS the stop goes on, the disconnect finishes in the
   * background, and the coordinator drops this member by its session if it never does.
   */
  async stop(): Promise<void> {
    this.#stopped.abort();
    this.#set(NONE);
    const left = (async () => {
      await this.#starting?.catch(() => undefined);
      await this.#consumer.disconnect();
    })().catch((err: unknown) => {
      this.#o.log.warn({ err }, 'rollup ownership: leaving the group failed');
    });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, DISCONNECT_WAIT_MS);
    });
    await Promise.race([left, late]);
    clearTimeout(timer);
  }

  #set(owned: ReadonlySet<number>): void {
    this.#generation++;
    this.#owned = owned;
    this.#o.onChange?.(owned);
  }
}

/** The ownership topic's partition count, creating it with one partition per bucket when missing. */
async function ensureTopic(kafka: Kafka, topic: string, buckets: number, log: Logger): Promise<number> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    if (!(await admin.listTopics()).includes(topic)) {
      const created = await admin.createTopics({ topics: [{ topic, numPartitions: buckets }], waitForLeaders: true });
      if (created) log.info({ topic, partitions: buckets }, 'created the rollup ownership topic');
    }
    const meta = await admin.fetchTopicMetadata({ topics: [topic] });
    const partitions = meta.topics[0]?.partitions.length ?? 0;
    if (partitions === 0) throw new StartupError(`the rollup ownership topic ${topic} has no partitions (rollup.owners.topic)`);
    if (partitions < buckets)
      log.warn(
        { topic, partitions, buckets },
        'the rollup ownership topic has fewer partitions than salt buckets: bucket b goes with partition b mod P, so ownership is coarser',
      );
    return partitions;
  } finally {
    await admin.disconnect();
  }
}

/** The ownership of one runner as configured: Kafka group membership, or every bucket (`mode: "all"`). */
export function ownersOptions(
  cfg: Config,
  kafka: Kafka,
  log: Logger,
  hooks: { readonly onChange?: (owned: ReadonlySet<number>) => void; readonly onJoin?: () => void } = {},
): RollupOwnersOptions {
  const o = cfg.rollup.owners;
  const topic = o.topic ?? `${cfg.kafka.topic}.rollup-owners`;
  return {
    kafka,
    topic,
    // one group per (ingest group, ownership topic): two deployments that share a group id but not a
    // topic never mix (kafkajs's assigner expects every member to subscribe to the same topics)
    groupId: o.groupId ?? `${cfg.kafka.groupId}.${topic}`,
    buckets: cfg.keys.saltBuckets,
    sessionTimeoutMs: o.sessionTimeoutMs,
    heartbeatIntervalMs: Math.min(cfg.kafka.heartbeatIntervalMs, Math.floor(o.sessionTimeoutMs / 3)),
    log: log.child({ module: 'rollup-owners' }),
    ...(hooks.onChange === undefined ? {} : { onChange: hooks.onChange }),
    ...(hooks.onJoin === undefined ? {} : { onJoin: hooks.onJoin }),
  };
}
