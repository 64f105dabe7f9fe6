// The Kafka side: a consumer-group member that takes each fetched batch, cuts it into flush units,
// writes each unit (data, then index) and dead-letters its bad records, and only then commits the
// unit's offsets. Nothing is committed past an unacknowledged write; on any failure the batch is
// left uncommitted and will be replayed (writes are idempotent).
import type { Consumer, EachBatchPayload, KafkaMessage } from 'kafkajs';
import type { Logger } from 'pino';
import type { DlqRecord, DlqSink } from './dlq.ts';
import type { DualWriter } from './dual-writer.ts';
import { chunkRows, planBatch, recordBytes, type PlanSettings, type Rejected, type SourceRecord } from './batch-plan.ts';

export interface IngestObserver {
  unit(rows: number, bytes: number): void;
  accepted(eventTs: readonly number[]): void;
  deadLettered(rejects: readonly Rejected[]): void;
  lag(topic: string, partition: number, lag: number): void;
}

export interface IngestConsumerOptions {
  readonly consumer: Consumer;
  readonly topic: string;
  readonly fromBeginning: boolean;
  readonly partitionsConsumedConcurrently: number;
  readonly heartbeatIntervalMs: number;
  readonly unit: { readonly maxRows: number; readonly maxBytes: number };
  /** read per flush unit, so limits that depend on the clock (future skew) stay current */
  readonly settings: () => PlanSettings;
  readonly writer: DualWriter;
  readonly dlq: DlqSink;
  readonly observer: IngestObserver;
  readonly log: Logger;
  readonly signal: AbortSignal;
  /** a failure that replaying cannot fix (e.g. the table is gone): the service must stop */
  readonly onFatal: (err: unknown) => void;
}

function toSource(m: KafkaMessage): SourceRecord {
  return { offset: m.offset, key: m.key ?? null, value: m.value ?? null, timestamp: m.timestamp };
}

function toDlq(topic: string, partition: number, r: Rejected): DlqRecord {
  return { topic, partition, ...r.record, reason: r.reason, field: r.field, detail: r.detail };
}

export class IngestConsumer {
  readonly #o: IngestConsumerOptions;
  #paused = false;

  constructor(options: IngestConsumerOptions) {
    this.#o = options;
  }

  async start(): Promise<void> {
    const { consumer, topic } = this.#o;
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: this.#o.fromBeginning });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: this.#o.partitionsConsumedConcurrently,
      eachBatch: (payload) => this.#eachBatch(payload),
    });
  }

  /** Stop fetching (HBase is down past its deadline); in-flight writes keep retrying. */
  pause(): void {
    if (this.#paused) return;
    this.#paused = true;
    this.#o.consumer.pause([{ topic: this.#o.topic }]);
  }

  resume(): void {
    if (!this.#paused) return;
    this.#paused = false;
    this.#o.consumer.resume([{ topic: this.#o.topic }]);
  }

  async stop(): Promise<void> {
    await this.#o.consumer.stop();
    await this.#o.consumer.disconnect();
  }

  async #eachBatch(payload: EachBatchPayload): Promise<void> {
    const { batch } = payload;
    const heartbeat = (): Promise<void> => payload.heartbeat();
    const isRunning = (): boolean => payload.isRunning();
    const isStale = (): boolean => payload.isStale();
    const { topic, partition } = batch;
    const { log, observer, signal } = this.#o;
    const units = chunkRows(batch.messages, this.#o.unit.maxRows, this.#o.unit.maxBytes, (m) => recordBytes(toSource(m)));
    // Long writes (HBase slow or down) must not cost us the group membership.
    const beat = setInterval(() => {
      heartbeat().catch((err: unknown) => { log.debug({ err, topic, partition }, 'heartbeat failed during a batch'); });
    }, this.#o.heartbeatIntervalMs);
    try {
      for (const unit of units) {
        if (!isRunning() || isStale() || signal.aborted) return;
        const records = unit.map(toSource);
        const plan = planBatch(records, this.#o.settings());
        const [refused] = await Promise.all([
          this.#o.writer.write(plan),
          this.#o.dlq.send(plan.rejects.map((r) => toDlq(topic, partition, r))),
        ]);
        await this.#o.dlq.send(refused.map((r) => toDlq(topic, partition, r)));
        const last = records[records.length - 1];
        if (last === undefined) continue;
        // Every write and dead-letter up to `last` is acknowledged: now, and only now, commit.
        await this.#o.consumer.commitOffsets([{ topic, partition, offset: (BigInt(last.offset) + 1n).toString() }]);
        payload.resolveOffset(last.offset);
        observer.unit(records.length, records.reduce((n, r) => n + recordBytes(r), 0));
        observer.accepted(plan.events.filter((e) => !refused.some((r) => r.record === e.record)).map((e) => e.ts));
        observer.deadLettered([...plan.rejects, ...refused]);
        observer.lag(topic, partition, Number(BigInt(batch.highWatermark) - BigInt(last.offset) - 1n));
        await heartbeat().catch(() => undefined);
      }
    } catch (err) {
      if (signal.aborted) {
        log.info({ topic, partition }, 'batch abandoned by shutdown; its uncommitted records will be replayed');
        return;
      }
      log.error({ err, topic, partition }, 'batch failed; nothing past the last acknowledged unit was committed');
      // Kafka-side failures (a rebalance during commit, a lost coordinator) are kafkajs's to
      // recover from: it rejoins and the batch is replayed. Anything else cannot heal by replaying.
      if (!(err instanceof Error && err.name.startsWith('KafkaJS'))) this.#o.onFatal(err);
      throw err;
    } finally {
      clearInterval(beat);
    }
  }
}
