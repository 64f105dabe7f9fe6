// Commits the consumer's resolved Kafka offsets off the consume cycle, one OffsetCommit request at a
// time; flush() for the drain.
// Design notes: docs/DECISIONS.md#offset-commits
import type { EachBatchPayload } from 'kafkajs';

/** The parts of a kafkajs eachBatch payload that commit (any payload: they act on the consumer group). */
export type CommitPort = Pick<EachBatchPayload, 'uncommittedOffsets' | 'commitOffsetsIfNecessary'>;

/** Offsets resolved but not (known to be) committed, per partition: what flush() could not commit. */
export interface PendingRange {
  readonly partition: number;
  readonly first: string;
  readonly last: string;
}

export interface OffsetCommitterOptions {
  readonly topic: string;
  /** pause before a failed commit is retried by the timer (ms) */
  readonly retryMs: number;
  readonly onError: (err: unknown) => void;
}

export class OffsetCommitter {
  readonly #o: OffsetCommitterOptions;
  #port: CommitPort | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #lastError: unknown;
  #retry: NodeJS.Timeout | undefined;
  /** resolved, not yet committed ranges per partition (for the drain's report) */
  readonly #pending = new Map<number, { first: string; last: string }>();

  constructor(options: OffsetCommitterOptions) {
    this.#o = options;
  }

  /** A unit's records [first, last] of `partition` were resolved through `port`: commit them soon. */
  resolved(port: CommitPort, partition: number, first: string, last: string): void {
    this.#port = port;
    const p = this.#pending.get(partition);
    this.#pending.set(partition, { first: p?.first ?? first, last });
    this.request();
  }

  /** Starts a commit, or marks one to follow the commit in flight. */
  request(): void {
    if (this.#running !== undefined) {
      this.#again = true;
      return;
    }
    this.#running = this.#loop().finally(() => {
      this.#running = undefined;
    });
  }

  /** Commits everything resolved so far; rejects with the last commit error when some remain. */
  async flush(): Promise<void> {
    clearTimeout(this.#retry);
    this.request();
    while (this.#running !== undefined) await this.#running;
    if (this.#pending.size > 0) {
      const e = this.#lastError;
      throw e instanceof Error ? e : new Error(`offsets not committed: ${String(e)}`);
    }
  }

  /** What flush() left uncommitted. */
  get pending(): readonly PendingRange[] {
    return [...this.#pending].map(([partition, r]) => ({ partition, ...r }));
  }

  /** Stops the retry timer (the consumer is gone). */
  close(): void {
    clearTimeout(this.#retry);
  }

  async #loop(): Promise<void> {
    for (;;) {
      this.#again = false;
      const port = this.#port;
      if (port === undefined) return;
      const offsets = port.uncommittedOffsets();
      const mine = offsets.topics.filter((t) => t.topic === this.#o.topic);
      // A partition kafkajs no longer lists has nothing left to commit: committed, or reset by a
      // rejoin (its records are replayed by whoever owns it now).
      this.#keepOnly(mine);
      if (mine.length > 0) {
        try {
          await port.commitOffsetsIfNecessary({ topics: mine });
          this.#lastError = undefined;
          this.#forget(mine);
        } catch (err) {
          this.#lastError = err;
          this.#o.onError(err);
          clearTimeout(this.#retry);
          this.#retry = setTimeout(() => {
            this.request();
          }, this.#o.retryMs);
          this.#retry.unref();
          return;
        }
      }
      if (!this.#askedAgain()) return;
    }
  }

  /** Whether a commit was asked for while the last one ran (a method: the flag changes across awaits). */
  #askedAgain(): boolean {
    return this.#again;
  }

  #keepOnly(listed: readonly { partitions: readonly { partition: number | string }[] }[]): void {
    const keep = new Set(listed.flatMap((t) => t.partitions.map((p) => Number(p.partition))));
    for (const partition of [...this.#pending.keys()]) if (!keep.has(partition)) this.#pending.delete(partition);
  }

  /**
   * Drops the pending ranges a commit covered (offset = next to read). kafkajs's uncommittedOffsets()
   * names partitions by its object keys: strings, despite its types.
   */
  #forget(committed: readonly { partitions: readonly { partition: number | string; offset: string }[] }[]): void {
    for (const t of committed) {
      for (const { partition: named, offset } of t.partitions) {
        const partition = Number(named);
        const p = this.#pending.get(partition);
        if (p === undefined) continue;
        if (BigInt(p.last) < BigInt(offset)) this.#pending.delete(partition);
        else this.#pending.set(partition, { first: offset, last: p.last });
      }
    }
  }
}
