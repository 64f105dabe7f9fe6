// Consumer lag measured on a timer, independent of progress: for every partition this instance owns,
// the broker's high watermark minus the group's committed offset. A stalled writer therefore shows a
// growing lag (it used to be set only after a committed unit, so a stall froze it). Series of
// partitions the instance no longer owns are removed after a rebalance. The broker answering the
// poll (or not) is also reported, so readiness can follow a broker that went away.

export interface PartitionOffsets {
  readonly partition: number;
  /** high watermark (next offset to be written) */
  readonly high: string;
  /** earliest available offset */
  readonly low: string;
}

/** What the monitor asks Kafka (kafkajs Admin fetchTopicOffsets + fetchOffsets fit). */
export interface OffsetsSource {
  topicOffsets(topic: string): Promise<readonly PartitionOffsets[]>;
  /** committed offset per partition; "-1" when the group has none */
  committed(groupId: string, topic: string): Promise<readonly { readonly partition: number; readonly offset: string }[]>;
}

export interface LagSink {
  set(topic: string, partition: number, lag: number): void;
  remove(topic: string, partition: number): void;
}

export interface LagMonitorOptions {
  readonly source: OffsetsSource;
  readonly sink: LagSink;
  readonly topic: string;
  readonly groupId: string;
  readonly intervalMs: number;
  /** after each poll: did the broker answer? */
  readonly onPoll?: (ok: boolean, err?: unknown) => void;
}

/** Lag of one partition; with no commit yet, everything still retained counts. */
export function partitionLag(offsets: PartitionOffsets, committed: string | undefined): number {
  const high = BigInt(offsets.high);
  const c = committed === undefined || BigInt(committed) < 0n ? BigInt(offsets.low) : BigInt(committed);
  const lag = high - c;
  return Number(lag < 0n ? 0n : lag);
}

export class LagMonitor {
  readonly #o: LagMonitorOptions;
  #owned = new Set<number>();
  readonly #reported = new Set<number>();
  #timer: NodeJS.Timeout | undefined;
  #polling: Promise<void> | undefined;

  constructor(options: LagMonitorOptions) {
    this.#o = options;
  }

  /** The partitions of the topic this instance owns now (from the group-join assignment). */
  assign(partitions: readonly number[]): void {
    this.#owned = new Set(partitions);
    for (const p of [...this.#reported]) {
      if (this.#owned.has(p)) continue;
      this.#o.sink.remove(this.#o.topic, p);
      this.#reported.delete(p);
    }
  }

  /** One measurement (overlapping calls share the one in progress). */
  poll(): Promise<void> {
    this.#polling ??= this.#measure().finally(() => {
      this.#polling = undefined;
    });
    return this.#polling;
  }

  async #measure(): Promise<void> {
    const { source, sink, topic, groupId } = this.#o;
    let offsets: readonly PartitionOffsets[];
    let committed: Map<number, string>;
    try {
      const [o, c] = await Promise.all([source.topicOffsets(topic), source.committed(groupId, topic)]);
      offsets = o;
      committed = new Map(c.map((p) => [p.partition, p.offset]));
    } catch (err) {
      this.#o.onPoll?.(false, err);
      return;
    }
    this.#o.onPoll?.(true);
    for (const p of offsets) {
      if (!this.#owned.has(p.partition)) continue;
      sink.set(topic, p.partition, partitionLag(p, committed.get(p.partition)));
      this.#reported.add(p.partition);
    }
  }

  start(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => {
      void this.poll();
    }, this.#o.intervalMs);
    this.#timer.unref();
  }

  /** Stops the timer and removes every series this instance reported. */
  async stop(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#polling;
    this.assign([]);
  }
}
