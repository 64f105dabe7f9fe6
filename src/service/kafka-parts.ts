// The Kafka-facing adapters of the service: the topic check before consuming, the offsets source of
// the lag monitor (kafkajs Admin), and the consumer's instrumentation events turned into health.
import type { Admin, Consumer, Kafka } from 'kafkajs';
import type { OffsetsSource } from '../ingest/lag-monitor.ts';
import { StartupError } from './service-settings.ts';

/**
 * The first connection of the service: the topics must exist. A failure that `explain` recognises
 * (refused credentials, a TLS mismatch) becomes a start-up error naming the setting to fix.
 */
export async function requireTopics(kafka: Kafka, topics: readonly string[], explain: (err: unknown) => string | undefined = () => undefined): Promise<void> {
  const admin = kafka.admin();
  try {
    await admin.connect();
  } catch (err) {
    const why = explain(err);
    if (why === undefined) throw err;
    throw new StartupError(why, err);
  }
  try {
    const existing = new Set(await admin.listTopics());
    const missing = topics.filter((t) => !existing.has(t));
    if (missing.length > 0) throw new StartupError(`Kafka topic(s) ${missing.join(', ')} do not exist; create them (kafka.topic and kafka.dlqTopic)`);
  } finally {
    await admin.disconnect();
  }
}

/** kafkajs Admin as the lag monitor's offsets source; connects lazily and again after a failure. */
export function adminOffsetsSource(admin: Admin): OffsetsSource & { close(): Promise<void> } {
  let connected: Promise<void> | undefined;
  const ready = (): Promise<void> => {
    connected ??= admin.connect().catch((err: unknown) => {
      connected = undefined;
      throw err;
    });
    return connected;
  };
  const guarded = async <T>(fn: () => Promise<T>): Promise<T> => {
    await ready();
    try {
      return await fn();
    } catch (err) {
      connected = undefined; // reconnect on the next poll
      await admin.disconnect().catch(() => undefined);
      throw err;
    }
  };
  return {
    topicOffsets: (topic) => guarded(async () => (await admin.fetchTopicOffsets(topic)).map((p) => ({ partition: p.partition, high: p.high, low: p.low }))),
    committed: (groupId, topic) =>
      guarded(async () => {
        const [t] = await admin.fetchOffsets({ groupId, topics: [topic] });
        return (t?.partitions ?? []).map((p) => ({ partition: p.partition, offset: p.offset }));
      }),
    close: () => admin.disconnect(),
  };
}

export interface ConsumerHealthEvents {
  /** joined the group; `partitions` of the topic this member owns now */
  joined(partitions: readonly number[]): void;
  /** kafkajs crashed the consumer; `restart` false means it gives up */
  crashed(err: Error, restart: boolean): void;
  /** the consumer disconnected or stopped (by us during shutdown, or by kafkajs after a crash) */
  lost(what: 'disconnected' | 'stopped'): void;
  /** a fetch came back from the broker */
  fetched(): void;
}

/** Subscribes to the consumer's instrumentation events; returns the unsubscribe function. */
export function watchConsumer(consumer: Consumer, topic: string, on: ConsumerHealthEvents): () => void {
  const { GROUP_JOIN, CRASH, DISCONNECT, STOP, FETCH } = consumer.events;
  const offs = [
    consumer.on(GROUP_JOIN, (e) => {
      on.joined(e.payload.memberAssignment[topic] ?? []);
    }),
    consumer.on(CRASH, (e) => {
      on.crashed(e.payload.error, e.payload.restart);
    }),
    consumer.on(DISCONNECT, () => {
      on.lost('disconnected');
    }),
    consumer.on(STOP, () => {
      on.lost('stopped');
    }),
    consumer.on(FETCH, () => {
      on.fetched();
    }),
  ];
  return () => {
    for (const off of offs) off();
  };
}
