// Parts of the scale-out test: a steady produce stream, named service instances (child processes of
// one consumer group, each with its own Kafka client id and HTTP port), the group's assignment as the
// broker reports it, and what each instance exports as consumer lag.
import assert from 'node:assert/strict';
import { AssignerProtocol, type Producer } from 'kafkajs';
import { lagByPartition, scrapeMetrics } from '../../../scripts/lib/bench/metrics-text.ts';
import { freePort, startChild, waitFor, type ChildService, type Harness, type TestEvent } from '../../support/service-harness.ts';

const HOUR = 3_600_000;

/**
 * Event i of the stream: 16 ids, ts 100 ms apart from a start well in the past (every 1 m and 1 h
 * window closed), quarter-integer values (sums exact in any order), every other one with the tag.
 */
export function streamEvent(i: number, base: number): TestEvent {
  const e = { id: `so-${i % 16}`, ts: base + i * 100, metric: i % 3 === 0 ? 'temp' : 'hum', value: ((i * 7) % 401) / 4 - 50 };
  return i % 2 === 0 ? { ...e, tags: { site: `s${i % 5}` } } : e;
}

export interface Stream {
  readonly events: TestEvent[];
  /** stops producing; resolves once every event sent is acknowledged (acks = all) */
  stop(): Promise<TestEvent[]>;
}

/** Produces `perTick` events every 100 ms (acks = all, idempotent) until stopped. */
export async function startStream(h: Harness, perTick: number): Promise<Stream> {
  const base = Math.floor(Date.now() / HOUR) * HOUR - 3 * HOUR - 20 * 60_000;
  const producer: Producer = h.kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  h.defer(() => producer.disconnect());
  const events: TestEvent[] = [];
  const state = { running: true };
  const loop = (async () => {
    while (state.running) {
      if (events.length + perTick > 70_000) throw new Error('stream: more than 70,000 events would reach windows that are not closed');
      const batch = Array.from({ length: perTick }, (_v, k) => streamEvent(events.length + k, base));
      await producer.send({ topic: h.names.topic, acks: -1, messages: batch.map((e) => ({ key: e.id, value: JSON.stringify(e) })) });
      events.push(...batch);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  loop.catch(() => undefined);
  return {
    events,
    stop: async () => {
      state.running = false;
      await loop;
      return events;
    },
  };
}

/** What a child logged from its last stop signal on (its drain), without kafkajs's routine rebalance chatter (the last 25 lines). */
function problems(output: string): string {
  const lines = output.split('\n');
  const from = lines.findLastIndex((l) => l.includes('signal received'));
  return lines
    .slice(Math.max(0, from))
    .filter((l) => !/rejoin is needed|Response Heartbeat|"http request"/.test(l))
    .slice(-25)
    .map((l) => l.slice(0, 600))
    .join('\n');
}

export interface Instance {
  readonly name: string;
  readonly clientId: string;
  readonly port: number;
  proc: ChildService | undefined;
}

/** Instances of one consumer group, each a `tsingest run` child process with its own client id and port. */
export class Instances {
  readonly #h: Harness;
  readonly #sets: readonly string[];
  readonly all: Instance[] = [];

  constructor(h: Harness, sets: readonly string[]) {
    this.#h = h;
    this.#sets = sets;
  }

  async add(name: string): Promise<Instance> {
    const i: Instance = { name, clientId: `${this.#h.names.topic}-${name}`, port: await freePort(), proc: undefined };
    this.all.push(i);
    return i;
  }

  get(name: string): Instance {
    const i = this.all.find((x) => x.name === name);
    if (i === undefined) throw new Error(`no instance ${name}`);
    return i;
  }

  live(): Instance[] {
    return this.all.filter((i) => i.proc !== undefined);
  }

  start(name: string): void {
    const i = this.get(name);
    i.proc = startChild(this.#h, [...this.#sets, `kafka.clientId=${i.clientId}`], i.port);
  }

  async kill9(name: string): Promise<void> {
    const i = this.get(name);
    i.proc?.child.kill('SIGKILL');
    assert.equal((await i.proc?.exited)?.signal, 'SIGKILL');
    i.proc = undefined;
  }

  /** SIGTERM: the drain must commit what it wrote and exit 0. */
  async stop(name: string): Promise<void> {
    const i = this.get(name);
    i.proc?.child.kill('SIGTERM');
    const exit = await i.proc?.exited;
    assert.equal(exit?.code, 0, `${name} exits 0 after SIGTERM; its drain:\n${problems(i.proc?.output() ?? '')}`);
    i.proc = undefined;
  }

  /** Fails when an instance that should run has exited. */
  check(): void {
    for (const i of this.live()) {
      if (i.proc?.child.exitCode !== null) throw new Error(`instance ${i.name} exited (${String(i.proc?.child.exitCode)}):\n${i.proc?.output() ?? ''}`);
    }
  }
}

export interface GroupView {
  readonly state: string;
  /** client id → partitions of the topic assigned to that member */
  readonly owners: ReadonlyMap<string, readonly number[]>;
}

/** The group as the coordinator describes it: state and each member's assignment of `topic`. */
export async function describeGroup(h: Harness, group: string): Promise<GroupView> {
  const { groups } = await h.admin.describeGroups([group]);
  const g = groups[0];
  const owners = new Map<string, number[]>();
  for (const m of g?.members ?? []) {
    const a = AssignerProtocol.MemberAssignment.decode(m.memberAssignment);
    owners.set(
      m.clientId,
      [...(a?.assignment[h.names.topic] ?? [])].sort((x, y) => x - y),
    );
  }
  return { state: g?.state ?? 'Dead', owners };
}

/** Waits until the group is Stable with exactly the live instances as members, every partition assigned once. */
export async function waitForGroup(
  h: Harness,
  group: string,
  inst: Instances,
  expected: { readonly partitions: number; readonly timeoutMs?: number },
): Promise<GroupView> {
  const { partitions, timeoutMs = 120_000 } = expected;
  let view: GroupView = { state: 'none', owners: new Map() };
  const want = inst
    .live()
    .map((i) => i.clientId)
    .sort();
  await waitFor(
    `group ${group} stable with ${want.join(', ')}`,
    timeoutMs,
    async () => {
      inst.check();
      view = await describeGroup(h, group);
      const assigned = [...view.owners.values()].flat().sort((x, y) => x - y);
      return (
        view.state === 'Stable' &&
        [...view.owners.keys()].sort().join() === want.join() &&
        assigned.join() === Array.from({ length: partitions }, (_v, p) => p).join()
      );
    },
    500,
  );
  return view;
}

/** Partitions with a tsingest_consumer_lag series on each live instance (null: /metrics did not answer). */
export async function lagSeries(h: Harness, inst: Instances): Promise<Map<string, number[] | null>> {
  const out = new Map<string, number[] | null>();
  for (const i of inst.live()) {
    const text = await scrapeMetrics(i.port);
    out.set(i.clientId, text === null ? null : [...lagByPartition(text, h.names.topic).keys()].sort((x, y) => x - y));
  }
  return out;
}

/**
 * Waits until each partition's lag series is on exactly one live instance, the member the group
 * assigned it to (the lag poll runs every 5 s); fails naming both sides when it does not get there.
 */
export async function waitForLagOwners(h: Harness, inst: Instances, view: GroupView, timeoutMs = 60_000): Promise<Map<string, number[] | null>> {
  const want = JSON.stringify([...view.owners].sort());
  let got = new Map<string, number[] | null>();
  await waitFor(
    'lag series to follow the assignment',
    timeoutMs,
    async () => {
      got = await lagSeries(h, inst);
      return JSON.stringify([...got].sort()) === want;
    },
    1000,
  ).catch((err: unknown) => {
    throw new Error(`${String(err)}
assigned: ${want}
lag series: ${JSON.stringify([...got].sort())}`);
  });
  return got;
}

/** Waits until the live instances' written-events counters have all moved past `min`. */
export async function waitForWrites(inst: Instances, what: string, written: (port: number) => Promise<number | null>, min = 1): Promise<void> {
  await waitFor(
    what,
    120_000,
    async () => {
      inst.check();
      for (const i of inst.live()) if (((await written(i.port)) ?? 0) < min) return false;
      return true;
    },
    250,
  );
}
