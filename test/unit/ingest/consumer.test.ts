// IngestConsumer with fakes for kafkajs, the writer and the DLQ: no commit without acknowledgement,
// a failed DLQ send means no commit, the drain commits what was written before the consumer stops,
// a drain that cannot commit fails loudly, and the queued-record bound holds across batches.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KafkaMessage } from 'kafkajs';
import { IngestConsumer, type BatchPayload, type ConsumerPort } from '../../../src/ingest/consumer.ts';
import type { BatchPlan, Rejected } from '../../../src/ingest/batch-plan.ts';
import type { DlqRecord } from '../../../src/ingest/dlq.ts';
import { unitPlanner } from '../../../src/ingest/unit-planner.ts';
import { createLogger } from '../../../src/runtime/logger.ts';
import { SETTINGS, event } from './fixtures.ts';

const log = createLogger({ level: 'silent' });

function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: Error) => void } {
  let resolve: (v: T) => void = () => undefined;
  let reject: (e: Error) => void = () => undefined;
  const promise = new Promise<T>((res, rej) => { resolve = res; reject = rej; });
  return { promise, resolve, reject };
}

class FakeConsumer implements ConsumerPort {
  readonly calls: string[] = [];
  connect(): Promise<void> { this.calls.push('connect'); return Promise.resolve(); }
  subscribe(): Promise<void> { return Promise.resolve(); }
  run(): Promise<void> { return Promise.resolve(); }
  stop(): Promise<void> { this.calls.push('stop'); return Promise.resolve(); }
  disconnect(): Promise<void> { this.calls.push('disconnect'); return Promise.resolve(); }
  pause(): void { this.calls.push('pause'); }
  resume(): void { this.calls.push('resume'); }
}

/** A writer whose writes resolve only when the test says so (FIFO). */
class GatedWriter {
  readonly pending: { plan: BatchPlan; gate: ReturnType<typeof deferred<Rejected[]>> }[] = [];
  readonly started = deferred<undefined>();
  write(plan: BatchPlan): Promise<Rejected[]> {
    const gate = deferred<Rejected[]>();
    this.pending.push({ plan, gate });
    this.started.resolve(undefined);
    return gate.promise;
  }
}

function messages(from: number, n: number, bad: readonly number[] = []): KafkaMessage[] {
  return Array.from({ length: n }, (_, i) => {
    const o = from + i;
    const value = Buffer.from(bad.includes(o) ? '{"id":' : JSON.stringify(event(o)));
    return { offset: String(o), key: null, value, timestamp: '0', attributes: 0, headers: {} };
  });
}

function payload(partition: number, msgs: KafkaMessage[], commits: string[], opts: { commitFails?: Error } = {}): BatchPayload {
  return {
    batch: { topic: 't', partition, messages: msgs },
    resolveOffset: () => undefined,
    heartbeat: () => Promise.resolve(),
    commitOffsetsIfNecessary: (offsets) => {
      if (opts.commitFails !== undefined) return Promise.reject(opts.commitFails);
      for (const t of offsets?.topics ?? []) for (const p of t.partitions) commits.push(`${p.partition}@${p.offset}`);
      return Promise.resolve();
    },
    isRunning: () => true,
    isStale: () => false,
  };
}

function consumer(o: { writer: GatedWriter | { write: (p: BatchPlan) => Promise<Rejected[]> }; dlq?: (r: readonly DlqRecord[]) => Promise<void>; maxRows?: number; maxQueuedRows?: number; fatal?: unknown[] }): { ingest: IngestConsumer; port: FakeConsumer; queued: number[] } {
  const port = new FakeConsumer();
  const queued: number[] = [];
  const ingest = new IngestConsumer({
    consumer: port,
    topic: 't',
    fromBeginning: true,
    partitionsConsumedConcurrently: 2,
    heartbeatIntervalMs: 60_000,
    unit: { maxRows: o.maxRows ?? 5, maxBytes: 1 << 20 },
    maxQueuedRows: o.maxQueuedRows ?? 100,
    plan: unitPlanner(() => SETTINGS),
    writer: o.writer,
    dlq: { send: o.dlq ?? (() => Promise.resolve()) },
    observer: { unit: () => undefined, accepted: () => undefined, deadLettered: () => undefined, queued: (n) => { queued.push(n); } },
    log,
    signal: new AbortController().signal,
    onFatal: (err) => { o.fatal?.push(err); },
  });
  return { ingest, port, queued };
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

void test('no commit until the unit is acknowledged; then exactly last + 1', async () => {
  const writer = new GatedWriter();
  const { ingest } = consumer({ writer, maxRows: 5 });
  const commits: string[] = [];
  const done = ingest.eachBatch(payload(0, messages(10, 5), commits));
  await writer.started.promise;
  await tick();
  assert.deepEqual(commits, [], 'nothing committed while the write is pending');
  writer.pending[0]?.gate.resolve([]);
  await done;
  assert.deepEqual(commits, ['0@15']);
});

void test('a failed DLQ send means no commit; a Kafka error is left to kafkajs, others are fatal', async () => {
  const kafkaErr = Object.assign(new Error('broker gone'), { name: 'KafkaJSConnectionError' });
  const fatal: unknown[] = [];
  const { ingest } = consumer({ writer: { write: () => Promise.resolve([]) }, dlq: () => Promise.reject(kafkaErr), fatal });
  const commits: string[] = [];
  await assert.rejects(ingest.eachBatch(payload(0, messages(0, 5, [2]), commits)), /broker gone/);
  assert.deepEqual(commits, []);
  assert.deepEqual(fatal, [], 'kafkajs recovers from its own errors (replay)');

  const other = consumer({ writer: { write: () => Promise.reject(new Error('table missing')) }, fatal });
  await assert.rejects(other.ingest.eachBatch(payload(0, messages(0, 5), commits)), /table missing/);
  assert.deepEqual(commits, []);
  assert.equal(fatal.length, 1, 'a non-Kafka failure cannot heal by replaying: fatal');
});

void test('drain: pauses fetching, lets the units in flight commit in order, starts no new unit, then stops', async () => {
  const writer = new GatedWriter();
  // three units; the budget holds two, so the third waits
  const { ingest, port } = consumer({ writer, maxRows: 5, maxQueuedRows: 10 });
  const commits: string[] = [];
  const batch = ingest.eachBatch(payload(1, messages(0, 15), commits));
  await writer.started.promise;
  await tick();
  assert.equal(writer.pending.length, 2, 'units of one batch are written concurrently, up to the budget');
  const draining = ingest.drain();
  await tick();
  assert.ok(port.calls.includes('pause'), 'fetching paused first');
  assert.ok(!port.calls.includes('stop'), 'the consumer keeps running while units are in flight');
  writer.pending[1]?.gate.resolve([]);
  await tick();
  assert.deepEqual(commits, [], 'the second unit waits for the first one before it commits');
  writer.pending[0]?.gate.resolve([]);
  await draining;
  await batch;
  assert.deepEqual(commits, ['1@5', '1@10'], 'both written units committed, in offset order; the third never started');
  assert.equal(writer.pending.length, 2);
  assert.ok(port.calls.indexOf('stop') > port.calls.indexOf('pause'));
  assert.equal(port.calls.at(-1), 'disconnect');
});

void test('a failed unit is not committed, nor is any unit after it, even when written', async () => {
  const writer = new GatedWriter();
  const { ingest } = consumer({ writer, maxRows: 5 });
  const commits: string[] = [];
  const batch = ingest.eachBatch(payload(3, messages(0, 10), commits));
  await writer.started.promise;
  await tick();
  assert.equal(writer.pending.length, 2);
  writer.pending[1]?.gate.resolve([]);
  writer.pending[0]?.gate.reject(Object.assign(new Error('table gone'), { code: 'TABLE_NOT_FOUND' }));
  await assert.rejects(batch, /table gone/);
  assert.deepEqual(commits, [], 'nothing committed: the second unit would skip the first one');
});

void test('drain fails loudly when a written unit cannot be committed', async () => {
  const writer = new GatedWriter();
  const { ingest } = consumer({ writer, maxRows: 5 });
  const commits: string[] = [];
  const rebalancing = Object.assign(new Error('rebalance in progress'), { name: 'KafkaJSProtocolError' });
  const batch = ingest.eachBatch(payload(2, messages(20, 5), commits, { commitFails: rebalancing }));
  await writer.started.promise;
  const draining = ingest.drain();
  writer.pending[0]?.gate.resolve([]);
  await assert.rejects(batch, /rebalance/);
  await assert.rejects(draining, (err: unknown) => {
    assert.equal((err as { code?: string }).code, 'DRAIN_FAILED');
    assert.match((err as Error).message, /partition 2 offsets 20–24/);
    return true;
  });
});

void test('queued records never exceed batch.maxQueuedRows across concurrent batches', async () => {
  const writer = new GatedWriter();
  const { ingest, port, queued } = consumer({ writer, maxRows: 5, maxQueuedRows: 5 });
  const commits: string[] = [];
  const a = ingest.eachBatch(payload(0, messages(0, 5), commits));
  const b = ingest.eachBatch(payload(1, messages(100, 5), commits));
  await tick();
  assert.equal(writer.pending.length, 1, 'the second unit waits for budget');
  assert.ok(port.calls.includes('pause'), 'fetching paused while the queue is full');
  writer.pending[0]?.gate.resolve([]);
  await a;
  await tick();
  assert.equal(writer.pending.length, 2, 'admitted once the first committed');
  writer.pending[1]?.gate.resolve([]);
  await b;
  assert.deepEqual(commits.sort(), ['0@5', '1@105']);
  assert.ok(Math.max(...queued) <= 5, `queue depth stayed within the bound: ${queued.join(',')}`);
  assert.equal(queued.at(-1), 0);
  assert.equal(port.calls.at(-1), 'resume', 'fetching resumed once the queue drained');
});
