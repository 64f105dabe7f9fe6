// IngestConsumer with fakes for kafkajs, the writer and the DLQ: no commit without acknowledgement,
// a failed DLQ send means no commit, commits follow the batch (one request for every partition
// resolved meanwhile; a failed one is retried), the drain commits what was written before the
// consumer stops, a drain that cannot commit fails loudly, and the queued-record bound holds across
// batches.
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
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

class FakeConsumer implements ConsumerPort {
  readonly calls: string[] = [];
  connect(): Promise<void> {
    this.calls.push('connect');
    return Promise.resolve();
  }
  subscribe(): Promise<void> {
    return Promise.resolve();
  }
  run(): Promise<void> {
    return Promise.resolve();
  }
  stop(): Promise<void> {
    this.calls.push('stop');
    return Promise.resolve();
  }
  disconnect(): Promise<void> {
    this.calls.push('disconnect');
    return Promise.resolve();
  }
  pause(): void {
    this.calls.push('pause');
  }
  resume(): void {
    this.calls.push('resume');
  }
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

/**
 * kafkajs's consumer group as far as commits go: resolved and committed offsets per partition, shared
 * by every payload it hands out (kafkajs's payload functions act on the group, not on the batch).
 */
class FakeGroup {
  readonly resolved = new Map<number, string>();
  readonly committed = new Map<number, string>();
  /** every commit request, as `partition@offset` lists */
  readonly requests: string[][] = [];
  commitFails: Error | undefined;
  /** the next commits wait for this gate, when set */
  gate: Promise<void> | undefined;

  payload(partition: number, msgs: KafkaMessage[]): BatchPayload {
    return {
      batch: { topic: 't', partition, messages: msgs },
      resolveOffset: (offset) => {
        this.resolved.set(partition, (BigInt(offset) + 1n).toString());
      },
      heartbeat: () => Promise.resolve(),
      uncommittedOffsets: () => {
        // kafkajs builds this list from object keys: its partitions are strings, whatever its types say
        const partitions = [...this.resolved]
          .filter(([p, o]) => this.committed.get(p) !== o)
          .map(([p, offset]) => ({ partition: String(p) as unknown as number, offset }));
        return { topics: partitions.length === 0 ? [] : [{ topic: 't', partitions }] };
      },
      commitOffsetsIfNecessary: async (offsets) => {
        await this.gate;
        if (this.commitFails !== undefined) throw this.commitFails;
        const request: string[] = [];
        for (const t of offsets?.topics ?? []) {
          for (const p of t.partitions) {
            this.committed.set(Number.parseInt(String(p.partition), 10), p.offset);
            request.push(`${p.partition}@${p.offset}`);
          }
        }
        this.requests.push(request);
      },
      isRunning: () => true,
      isStale: () => false,
    };
  }

  /** every partition@offset committed, in request order */
  get commits(): string[] {
    return this.requests.flat();
  }
}

function consumer(o: {
  writer: GatedWriter | { write: (p: BatchPlan) => Promise<Rejected[]> };
  dlq?: (r: readonly DlqRecord[]) => Promise<void>;
  maxRows?: number;
  maxQueuedRows?: number;
  fatal?: unknown[];
  commitRetryMs?: number;
}): { ingest: IngestConsumer; port: FakeConsumer; queued: number[] } {
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
    observer: {
      unit: () => undefined,
      accepted: () => undefined,
      deadLettered: () => undefined,
      queued: (n) => {
        queued.push(n);
      },
    },
    log,
    signal: new AbortController().signal,
    onFatal: (err) => {
      o.fatal?.push(err);
    },
    ...(o.commitRetryMs === undefined ? {} : { commitRetryMs: o.commitRetryMs }),
  });
  return { ingest, port, queued };
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

async function until(what: string, cond: () => boolean): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.fail(`timed out waiting for ${what}`);
}

void test('no commit until the unit is acknowledged; then exactly last + 1, after the batch', async () => {
  const writer = new GatedWriter();
  const { ingest } = consumer({ writer, maxRows: 5 });
  const group = new FakeGroup();
  const done = ingest.eachBatch(group.payload(0, messages(10, 5)));
  await writer.started.promise;
  await tick();
  assert.equal(group.commits.length, 0, 'nothing committed while the write is pending');
  assert.equal(group.resolved.size, 0, 'nor resolved (kafkajs would fetch past it)');
  writer.pending[0]?.gate.resolve([]);
  await done;
  assert.equal(group.resolved.get(0), '15', 'resolved once written');
  await until('the commit', () => group.commits.length > 0);
  assert.deepEqual(group.commits, ['0@15']);
});

void test('commits leave the batch: the partitions resolved while one is in flight share the next request', async () => {
  const { ingest } = consumer({ writer: { write: () => Promise.resolve([]) }, maxRows: 5 });
  const group = new FakeGroup();
  let open: () => void = () => undefined;
  group.gate = new Promise((r) => {
    open = r;
  });
  await ingest.eachBatch(group.payload(0, messages(0, 5)));
  // the first commit hangs; three more batches finish meanwhile
  await ingest.eachBatch(group.payload(1, messages(0, 5)));
  await ingest.eachBatch(group.payload(2, messages(0, 5)));
  await ingest.eachBatch(group.payload(0, messages(5, 5)));
  assert.equal(group.requests.length, 0, 'the batches did not wait for their commits');
  open();
  await until('two requests', () => group.requests.length === 2);
  assert.deepEqual(group.requests[0], ['0@5']);
  assert.deepEqual([...(group.requests[1] ?? [])].sort(), ['0@10', '1@5', '2@5'], 'one request for all that was resolved meanwhile');
  await tick();
  assert.equal(group.requests.length, 2);
});

/** A Kafka-side commit failure, named as kafkajs names it. */
function commitError(message: string): Error {
  return Object.assign(new Error(message), { name: 'KafkaJSProtocolError' });
}

/** A consumer whose writes succeed, a group whose commits fail, and one unit (offsets 0–4) of `partition` handled. */
async function afterFailedCommit(partition: number, message: string, commitRetryMs: number): Promise<{ ingest: IngestConsumer; group: FakeGroup }> {
  const { ingest } = consumer({ writer: { write: () => Promise.resolve([]) }, maxRows: 5, commitRetryMs });
  const group = new FakeGroup();
  group.commitFails = commitError(message);
  await ingest.eachBatch(group.payload(partition, messages(0, 5)));
  await tick();
  return { ingest, group };
}

void test('a failed commit is retried, by its timer when nothing else asks', async () => {
  const { group } = await afterFailedCommit(4, 'coordinator moving', 20);
  assert.equal(group.commits.length, 0);
  group.commitFails = undefined;
  await until('the retried commit', () => group.commits.length > 0);
  assert.deepEqual(group.commits, ['4@5']);
});

void test('after a rejoin, a partition kafkajs no longer lists is neither committed nor reported by the drain', async () => {
  const { ingest, group } = await afterFailedCommit(5, 'rebalance in progress', 60_000);
  // the rejoin: kafkajs's new offset manager has nothing resolved; this instance now has partition 1,
  // whose first commit fails too; the drain's commits succeed
  group.resolved.clear();
  await ingest.eachBatch(group.payload(1, messages(0, 5)));
  await tick();
  group.commitFails = undefined;
  await ingest.drain();
  assert.deepEqual([...group.committed], [[1, '5']], 'partition 5 is replayed by its new owner, not committed from here');
});

void test('a failed DLQ send means no commit; a Kafka error is left to kafkajs, others are fatal', async () => {
  const kafkaErr = Object.assign(new Error('broker gone'), { name: 'KafkaJSConnectionError' });
  const fatal: unknown[] = [];
  const { ingest } = consumer({ writer: { write: () => Promise.resolve([]) }, dlq: () => Promise.reject(kafkaErr), fatal });
  const group = new FakeGroup();
  await assert.rejects(ingest.eachBatch(group.payload(0, messages(0, 5, [2]))), /broker gone/);
  await tick();
  assert.equal(group.commits.length, 0);
  assert.equal(group.resolved.size, 0);
  assert.deepEqual(fatal, [], 'kafkajs recovers from its own errors (replay)');

  const other = consumer({ writer: { write: () => Promise.reject(new Error('table missing')) }, fatal });
  await assert.rejects(other.ingest.eachBatch(group.payload(0, messages(0, 5))), /table missing/);
  await tick();
  assert.equal(group.commits.length, 0);
  assert.equal(fatal.length, 1, 'a non-Kafka failure cannot heal by replaying: fatal');
});

void test('drain: pauses fetching, lets the units in flight commit in order, starts no new unit, then stops', async () => {
  const writer = new GatedWriter();
  // three units; the budget holds two, so the third waits
  const { ingest, port } = consumer({ writer, maxRows: 5, maxQueuedRows: 10 });
  const group = new FakeGroup();
  const batch = ingest.eachBatch(group.payload(1, messages(0, 15)));
  await writer.started.promise;
  await tick();
  assert.equal(writer.pending.length, 2, 'units of one batch are written concurrently, up to the budget');
  const draining = ingest.drain();
  await tick();
  assert.ok(port.calls.includes('pause'), 'fetching paused first');
  assert.ok(!port.calls.includes('stop'), 'the consumer keeps running while units are in flight');
  writer.pending[1]?.gate.resolve([]);
  await tick();
  assert.equal(group.commits.length, 0, 'the second unit waits for the first one before it is resolved');
  assert.equal(group.resolved.size, 0);
  writer.pending[0]?.gate.resolve([]);
  await draining;
  await batch;
  assert.equal(group.commits.at(-1), '1@10', 'both written units committed before the consumer stopped; the third never started');
  const offsets = group.requests.flat().map((c) => Number(c.split('@')[1]));
  assert.deepEqual(
    offsets,
    [...offsets].sort((a, b) => a - b),
    'in offset order',
  );
  assert.equal(writer.pending.length, 2);
  assert.ok(port.calls.indexOf('stop') > port.calls.indexOf('pause'));
  assert.equal(port.calls.at(-1), 'disconnect');
});

void test('a failed unit is not committed, nor is any unit after it, even when written', async () => {
  const writer = new GatedWriter();
  const { ingest } = consumer({ writer, maxRows: 5 });
  const group = new FakeGroup();
  const batch = ingest.eachBatch(group.payload(3, messages(0, 10)));
  await writer.started.promise;
  await tick();
  assert.equal(writer.pending.length, 2);
  writer.pending[1]?.gate.resolve([]);
  writer.pending[0]?.gate.reject(Object.assign(new Error('table gone'), { code: 'HBASE_TABLE_NOT_FOUND' }));
  await assert.rejects(batch, /table gone/);
  await tick();
  assert.equal(group.commits.length, 0, 'nothing committed: the second unit would skip the first one');
  assert.equal(group.resolved.size, 0, 'nor resolved: kafkajs fetches both again');
});

void test('drain fails loudly when a written unit cannot be committed', async () => {
  const writer = new GatedWriter();
  const { ingest } = consumer({ writer, maxRows: 5 });
  const group = new FakeGroup();
  group.commitFails = commitError('rebalance in progress');
  const batch = ingest.eachBatch(group.payload(2, messages(20, 5)));
  await writer.started.promise;
  const draining = ingest.drain();
  writer.pending[0]?.gate.resolve([]);
  await batch;
  await assert.rejects(draining, (err: unknown) => {
    assert.equal((err as { code?: string }).code, 'DRAIN_FAILED');
    assert.match((err as Error).message, /partition 2 offsets 20–24/);
    return true;
  });
});

void test('queued records never exceed batch.maxQueuedRows across concurrent batches', async () => {
  const writer = new GatedWriter();
  const { ingest, port, queued } = consumer({ writer, maxRows: 5, maxQueuedRows: 5 });
  const group = new FakeGroup();
  const a = ingest.eachBatch(group.payload(0, messages(0, 5)));
  const b = ingest.eachBatch(group.payload(1, messages(100, 5)));
  await tick();
  assert.equal(writer.pending.length, 1, 'the second unit waits for budget');
  assert.ok(port.calls.includes('pause'), 'fetching paused while the queue is full');
  writer.pending[0]?.gate.resolve([]);
  await a;
  await tick();
  assert.equal(writer.pending.length, 2, 'admitted once the first committed');
  writer.pending[1]?.gate.resolve([]);
  await b;
  await until('both commits', () => group.committed.size === 2);
  assert.deepEqual([...group.committed].sort(), [
    [0, '5'],
    [1, '105'],
  ]);
  assert.ok(Math.max(...queued) <= 5, `queue depth stayed within the bound: ${queued.join(',')}`);
  assert.equal(queued.at(-1), 0);
  assert.equal(port.calls.at(-1), 'resume', 'fetching resumed once the queue drained');
});
