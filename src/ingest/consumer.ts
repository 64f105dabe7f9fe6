// The Kafka side: a consumer-group member that cuts each fetched batch into flush units, writes them,
// dead-letters bad records and resolves offsets in order; and the flow control (outage, queue
// budget, drain).
// Design notes: docs/DECISIONS.md#the-consumer
import type { Batch, EachBatchPayload, KafkaMessage } from 'kafkajs';
import type { Logger } from 'pino';
import { ServiceError, classifyError, errorMessage } from '../errors.ts';
import type { DlqRecord, DlqSink } from './dlq.ts';
import type { EventWriter } from './event-writer.ts';
import { chunkRows, recordBytes, type BatchPlan, type Rejected, type SourceRecord } from './batch-plan.ts';
import type { UnitPlanner } from './unit-planner.ts';
import { FlowControl, type HoldReason } from './flow-control.ts';
import { OffsetCommitter } from './offset-committer.ts';

export interface IngestObserver {
  unit(rows: number, bytes: number): void;
  accepted(eventTs: readonly number[]): void;
  deadLettered(rejects: readonly Rejected[]): void;
  /** records taken from Kafka and not yet committed or abandoned */
  queued(records: number): void;
}

/** What the ingest path needs of a kafkajs Consumer (a Consumer fits; unit tests pass a fake). */
export interface ConsumerPort {
  connect(): Promise<void>;
  subscribe(subscription: { topic: string; fromBeginning: boolean }): Promise<void>;
  run(config: {
    autoCommit: boolean;
    eachBatchAutoResolve: boolean;
    partitionsConsumedConcurrently: number;
    eachBatch: (payload: EachBatchPayload) => Promise<void>;
  }): Promise<void>;
  stop(): Promise<void>;
  disconnect(): Promise<void>;
  pause(topics: { topic: string }[]): void;
  resume(topics: { topic: string }[]): void;
}

/** The parts of kafkajs's eachBatch payload used here. */
export type BatchPayload = Pick<
  EachBatchPayload,
  'resolveOffset' | 'heartbeat' | 'commitOffsetsIfNecessary' | 'uncommittedOffsets' | 'isRunning' | 'isStale'
> & {
  readonly batch: Pick<Batch, 'topic' | 'partition' | 'messages'>;
};

export interface IngestConsumerOptions {
  readonly consumer: ConsumerPort;
  readonly topic: string;
  readonly fromBeginning: boolean;
  readonly partitionsConsumedConcurrently: number;
  readonly heartbeatIntervalMs: number;
  readonly unit: { readonly maxRows: number; readonly maxBytes: number };
  readonly maxQueuedRows: number;
  /** plans each flush unit (unit-planner.ts: the parse limits and the spread registry stay current) */
  readonly plan: UnitPlanner;
  readonly writer: Pick<EventWriter, 'write'>;
  readonly dlq: DlqSink;
  readonly observer: IngestObserver;
  readonly log: Pick<Logger, 'info' | 'warn' | 'error' | 'debug'>;
  /** aborted when in-flight writes must be abandoned (the drain ran out of time) */
  readonly signal: AbortSignal;
  /** a failure that replaying cannot fix (e.g. the table is gone): the service must stop */
  readonly onFatal: (err: unknown) => void;
  /** pause before a failed offset commit is tried again when nothing else asks for one (ms) */
  readonly commitRetryMs?: number;
}

function toSource(m: KafkaMessage): SourceRecord {
  return { offset: m.offset, key: m.key ?? null, value: m.value ?? null, timestamp: m.timestamp };
}

function toDlq(topic: string, partition: number, r: Rejected): DlqRecord {
  return { topic, partition, ...r.record, reason: r.reason, field: r.field, detail: r.detail, stored: r.stored };
}

interface UnitRange {
  readonly partition: number;
  readonly first: string;
  readonly last: string;
}

export class IngestConsumer {
  readonly #o: IngestConsumerOptions;
  readonly #flow: FlowControl;
  /** aborts units waiting for budget when the drain begins */
  readonly #drainStart = new AbortController();
  #inflight = 0;
  #idle: (() => void)[] = [];
  #draining = false;
  /** units the drain could not commit (written or partly written, then abandoned or commit failed) */
  readonly #uncommitted: { range: UnitRange; reason: string }[] = [];
  readonly #committer: OffsetCommitter;

  constructor(options: IngestConsumerOptions) {
    this.#o = options;
    this.#committer = new OffsetCommitter({
      topic: options.topic,
      retryMs: options.commitRetryMs ?? 1000,
      onError: (err) => {
        options.log.warn({ err, topic: options.topic }, 'offset commit failed; it is retried (nothing past an acknowledged write is committed)');
      },
    });
    this.#flow = new FlowControl({
      maxQueuedRows: options.maxQueuedRows,
      onPausedChange: (paused, reasons) => {
        this.#applyPause(paused, reasons);
      },
      onQueued: (n) => {
        options.observer.queued(n);
      },
    });
  }

  async start(): Promise<void> {
    const { consumer, topic } = this.#o;
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: this.#o.fromBeginning });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: this.#o.partitionsConsumedConcurrently,
      eachBatch: (payload) => this.eachBatch(payload),
    });
  }

  /** Stop fetching for `reason` (e.g. HBase down past its deadline); in-flight writes keep retrying. */
  pause(reason: HoldReason): void {
    this.#flow.hold(reason);
  }

  resume(reason: HoldReason): void {
    this.#flow.release(reason);
  }

  get queued(): number {
    return this.#flow.queued;
  }

  get paused(): readonly HoldReason[] {
    return this.#flow.holds;
  }

  /** kafkajs forgets pauses when it restarts a crashed consumer: re-apply them after it rejoins. */
  reapplyPause(): void {
    if (this.#flow.paused) this.#applyPause(true, this.#flow.holds);
  }

  /**
   * Graceful stop: pause fetching, let the units in flight finish and commit (the consumer is still
   * running, so commits really happen), then stop and disconnect. Rejects with DRAIN_FAILED when a
   * unit that was (partly) written could not be committed; it will be replayed on restart.
   */
  async drain(): Promise<void> {
    if (!this.#draining) {
      this.#draining = true;
      this.#flow.hold('draining');
      this.#drainStart.abort(new ServiceError({ code: 'ABORTED', message: 'draining', fatal: false }));
    }
    if (this.#inflight > 0)
      await new Promise<void>((resolve) => {
        this.#idle.push(resolve);
      });
    try {
      await this.#committer.flush();
    } catch (err) {
      for (const r of this.#committer.pending) this.#uncommitted.push({ range: r, reason: errorMessage(err) });
    }
    this.#committer.close();
    try {
      await this.#o.consumer.stop();
    } finally {
      await this.#o.consumer.disconnect();
    }
    if (this.#uncommitted.length > 0) {
      const units = this.#uncommitted.map((u) => `partition ${u.range.partition} offsets ${u.range.first}–${u.range.last} (${u.reason})`);
      throw new ServiceError({ code: 'DRAIN_FAILED', message: `drain left ${units.length} unit(s) uncommitted; they will be replayed: ${units.join('; ')}` });
    }
  }

  /** kafkajs's eachBatch (public for unit tests with a fake payload). */
  async eachBatch(payload: BatchPayload): Promise<void> {
    this.#inflight++;
    try {
      await this.#batch(payload);
    } finally {
      this.#inflight--;
      if (this.#inflight === 0) for (const resolve of this.#idle.splice(0)) resolve();
    }
  }

  #applyPause(paused: boolean, reasons: readonly HoldReason[]): void {
    const { consumer, topic, log } = this.#o;
    try {
      if (paused) consumer.pause([{ topic }]);
      else consumer.resume([{ topic }]);
      log.info({ topic, reasons }, paused ? 'fetching paused' : 'fetching resumed');
    } catch (err) {
      // Before run() (or between a crash and the restart) kafkajs has no group to pause; the
      // pause is re-applied when the consumer joins again (reapplyPause).
      log.debug({ err, topic }, 'pause/resume not applied yet');
    }
  }

  #stopping(payload: BatchPayload): boolean {
    return this.#draining || !payload.isRunning() || payload.isStale() || this.#o.signal.aborted;
  }

  /**
   * The units of one batch are pipelined: each is written as soon as it gets queue budget (the
   * shared p-queue bounds the requests in flight), while resolving follows in offset order — a unit
   * is resolved (and handed to the committer) only after its own writes and every earlier unit's
   * resolution. The first failure stops taking new units; the units after it are not resolved, so
   * kafkajs fetches them again (replayed).
   */
  async #batch(payload: BatchPayload): Promise<void> {
    const { batch } = payload;
    const { topic, partition } = batch;
    const { log } = this.#o;
    const units = chunkRows(batch.messages, this.#o.unit.maxRows, this.#o.unit.maxBytes, (m) => recordBytes(toSource(m)));
    // Long writes (HBase slow or down) must not cost us the group membership.
    const beat = setInterval(() => {
      payload.heartbeat().catch((err: unknown) => {
        log.debug({ err, topic, partition }, 'heartbeat failed during a batch');
      });
    }, this.#o.heartbeatIntervalMs);
    let resolved: Promise<void> = Promise.resolve();
    const state = { failed: false };
    try {
      for (const unit of units) {
        if (state.failed || this.#stopping(payload)) break;
        try {
          await this.#flow.acquire(unit.length, this.#drainStart.signal);
        } catch {
          break; // the drain began while this unit waited for budget: nothing of it was written
        }
        const records = unit.map(toSource);
        const written = this.#write(payload, records);
        resolved = this.#resolveAfter(resolved, written, payload, records);
        resolved.catch(() => {
          state.failed = true;
        });
      }
      await resolved;
    } catch (err) {
      if (this.#failed(err, topic, partition)) throw err;
    } finally {
      clearInterval(beat);
    }
  }

  /** Plans a unit and writes it (HBase and DLQ); resolves with what HBase refused (dead-lettered). */
  async #write(payload: BatchPayload, records: readonly SourceRecord[]): Promise<{ plan: BatchPlan; refused: Rejected[] }> {
    const { topic, partition } = payload.batch;
    const plan = await this.#o.plan(records);
    const [refused] = await Promise.all([this.#o.writer.write(plan), this.#o.dlq.send(plan.rejects.map((r) => toDlq(topic, partition, r)))]);
    await this.#o.dlq.send(refused.map((r) => toDlq(topic, partition, r)));
    return { plan, refused };
  }

  /**
   * Resolves a unit once its writes and the previous unit's resolution are done (the offset is then
   * safe to commit: the committer takes it from here); gives its budget back.
   */
  async #resolveAfter(
    previous: Promise<void>,
    written: Promise<{ plan: BatchPlan; refused: Rejected[] }>,
    payload: BatchPayload,
    records: readonly SourceRecord[],
  ): Promise<void> {
    const { partition } = payload.batch;
    const first = records[0] as SourceRecord;
    const last = records[records.length - 1] as SourceRecord;
    try {
      // Both are awaited (settled) so neither rejection goes unobserved.
      const [before, mine] = await Promise.allSettled([previous, written]);
      if (before.status === 'rejected') throw before.reason;
      if (mine.status === 'rejected') throw mine.reason;
      const { plan, refused } = mine.value;
      // Every write and dead-letter up to `last` is acknowledged: now, and only now, may it be committed.
      payload.resolveOffset(last.offset);
      this.#committer.resolved(payload, partition, first.offset, last.offset);
      const { observer } = this.#o;
      observer.unit(
        records.length,
        records.reduce((n, r) => n + recordBytes(r), 0),
      );
      const refusedRecords = new Set(refused.map((r) => r.record));
      observer.accepted(plan.events.filter((e) => !refusedRecords.has(e.record)).map((e) => e.ts));
      observer.deadLettered([...plan.rejects, ...refused]);
    } catch (err) {
      if (this.#draining) this.#uncommitted.push({ range: { partition, first: first.offset, last: last.offset }, reason: errorMessage(err) });
      throw err;
    } finally {
      this.#flow.giveBack(records.length);
    }
  }

  /** Logs a failed batch; false when it was abandoned by shutdown (nothing to tell kafkajs). */
  #failed(err: unknown, topic: string, partition: number): boolean {
    const { log } = this.#o;
    const c = classifyError(err);
    if (c.code === 'ABORTED') {
      log.warn({ topic, partition }, 'batch abandoned by shutdown; its uncommitted records will be replayed');
      return false;
    }
    log.error({ err, topic, partition, code: c.code }, 'batch failed; nothing past the last acknowledged unit was committed');
    // Kafka-side failures (a rebalance during commit, a lost coordinator) are kafkajs's to recover
    // from: it rejoins and the batch is replayed. A fatal error cannot heal by replaying.
    if (c.fatal) this.#o.onFatal(err);
    return true;
  }
}
