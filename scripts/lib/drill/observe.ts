// What the scale-out drill shows at each sample: which instance owns which partition according to
// Apache Kafka's own kafka-consumer-groups, the tsingest_consumer_lag series each live instance
// exports (partition=lag), and the broker-side lag; and whether the group has settled (every
// partition owned by a live instance, each partition's lag series on exactly its owner).
import { describeGroup, type GroupPartition } from '../stack/kafka-tools.ts';
import { lagByPartition, scrapeMetrics } from '../bench/metrics-text.ts';

export interface DrillInstance {
  readonly name: string;
  readonly clientId: string;
  readonly port: number;
  live: boolean;
}

export interface Snapshot {
  readonly t: number;
  readonly step: string;
  /** instance name → partitions kafka-consumer-groups shows it owning */
  readonly owners: ReadonlyMap<string, readonly number[]>;
  /** partitions without an owner (rebalancing) */
  readonly unowned: readonly number[];
  /** live instance name → its lag series (partition → lag); null when /metrics did not answer */
  readonly lag: ReadonlyMap<string, ReadonlyMap<number, number> | null>;
  readonly brokerLag: number;
  readonly produced: number;
  readonly group: readonly GroupPartition[];
}

export interface ObserverOptions {
  readonly brokers: string;
  readonly group: string;
  readonly topic: string;
  readonly partitions: number;
  readonly instances: readonly DrillInstance[];
  readonly produced: () => number;
  readonly say: (m: string) => void;
}

export class Observer {
  readonly #o: ObserverOptions;
  readonly #t0 = Date.now();
  readonly rows: string[] = [
    '| t (s) | step | owners (kafka-consumer-groups) | lag series per live instance (tsingest_consumer_lag, partition:lag) | broker-side lag | produced |',
    '|---|---|---|---|---|---|',
  ];

  constructor(o: ObserverOptions) {
    this.#o = o;
  }

  async sample(step: string): Promise<Snapshot> {
    const { brokers, group, topic, instances } = this.#o;
    const rows = await describeGroup(brokers, group, this.#o.say).catch(() => [] as GroupPartition[]);
    const owners = new Map<string, number[]>();
    const unowned: number[] = [];
    for (const r of rows.filter((x) => x.topic === topic).sort((x, y) => x.partition - y.partition)) {
      const who = instances.find((i) => i.clientId === r.clientId)?.name ?? r.clientId;
      if (who === null) unowned.push(r.partition);
      else owners.set(who, [...(owners.get(who) ?? []), r.partition]);
    }
    const lag = new Map<string, Map<number, number> | null>();
    for (const i of instances.filter((x) => x.live)) {
      const text = await scrapeMetrics(i.port);
      lag.set(i.name, text === null ? null : lagByPartition(text, topic));
    }
    const s: Snapshot = {
      t: Math.round((Date.now() - this.#t0) / 1000),
      step,
      owners,
      unowned,
      lag,
      brokerLag: rows.reduce((a, p) => a + (p.lag ?? p.logEnd), 0),
      produced: this.#o.produced(),
      group: rows,
    };
    this.rows.push(formatRow(s));
    this.#o.say(this.rows[this.rows.length - 1] ?? '');
    return s;
  }

  /** Every partition owned by a live instance, every live instance a member, each lag series on exactly its owner. */
  settled(s: Snapshot): boolean {
    const live = this.#o.instances
      .filter((i) => i.live)
      .map((i) => i.name)
      .sort();
    const owned = [...s.owners.values()].flat().sort((x, y) => x - y);
    if (s.unowned.length > 0 || owned.length !== this.#o.partitions || [...s.owners.keys()].sort().join() !== live.join()) return false;
    return live.every((name) => {
      const series = s.lag.get(name);
      return series !== null && series !== undefined && [...series.keys()].join() === (s.owners.get(name) ?? []).join();
    });
  }

  /** Samples (one every few seconds) until the group has settled; throws after `maxS` seconds. */
  async untilSettled(step: string, maxS = 120): Promise<Snapshot> {
    const deadline = Date.now() + maxS * 1000;
    for (;;) {
      const s = await this.sample(step);
      if (this.settled(s)) return s;
      if (Date.now() > deadline) throw new Error(`${step}: the group did not settle within ${maxS} s`);
      await new Promise((r) => setTimeout(r, 2000));
    }
  }
}

function list(p: readonly number[]): string {
  return p.join(',');
}

export function formatOwners(s: Snapshot): string {
  const owned = [...s.owners].map(([name, p]) => `${name}=${list(p)}`).sort();
  return [...owned, ...(s.unowned.length > 0 ? [`unowned=${list(s.unowned)}`] : [])].join(' ') || 'no members';
}

export function formatLag(s: Snapshot): string {
  return [...s.lag]
    .map(([name, m]) => (m === null ? `${name}: no answer` : `${name}{${[...m].map(([p, v]) => `${p}:${v}`).join(' ')}}`))
    .sort()
    .join(' ');
}

function formatRow(s: Snapshot): string {
  return `| ${s.t} | ${s.step} | ${formatOwners(s)} | ${formatLag(s)} | ${s.brokerLag} | ${s.produced} |`;
}
