/**
 * Pure (over injected async iterators): k-way merge of sorted sources into one sorted stream that
 * stops at `limit`, optionally dropping duplicates. Heads sit in a binary min-heap; equal items come
 * out in source order, so the result is deterministic. The next item of a source is only requested when its previous item was
 * taken, so with lazy sources (scanners reading small pages) nothing is read far ahead. On exit
 * (exhausted, limit, consumer stopped early, or error) every source is closed with return().
 */

interface Head<T> {
  readonly value: T;
  readonly src: number;
}

class MinHeap<T> {
  readonly #items: Head<T>[] = [];
  readonly #less: (a: Head<T>, b: Head<T>) => boolean;

  constructor(compare: (a: T, b: T) => number) {
    this.#less = (a, b) => {
      const c = compare(a.value, b.value);
      return c < 0 || (c === 0 && a.src < b.src);
    };
  }

  get size(): number {
    return this.#items.length;
  }

  push(h: Head<T>): void {
    const a = this.#items;
    a.push(h);
    let i = a.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#less(a[i] as Head<T>, a[parent] as Head<T>)) break;
      [a[i], a[parent]] = [a[parent] as Head<T>, a[i] as Head<T>];
      i = parent;
    }
  }

  pop(): Head<T> | undefined {
    const a = this.#items;
    const top = a[0];
    const last = a.pop();
    if (top === undefined || last === undefined || a.length === 0) return top;
    a[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < a.length && this.#less(a[l] as Head<T>, a[m] as Head<T>)) m = l;
      if (r < a.length && this.#less(a[r] as Head<T>, a[m] as Head<T>)) m = r;
      if (m === i) break;
      [a[i], a[m]] = [a[m] as Head<T>, a[i] as Head<T>];
      i = m;
    }
    return top;
  }
}

export interface MergeOptions {
  /** Yield at most this many items (default: all). */
  readonly limit?: number;
  /**
   * Drop an item that compares equal to the item yielded before it (the first source wins). The
   * readers merge one id's rows from several salt buckets by their key after the salt: the same
   * (id, ts) in two buckets is one event written twice, and only one copy is returned.
   */
  readonly distinct?: boolean;
}

/**
 * Merges sources that are each sorted by `compare` (ascending). The first item of every source is
 * requested at once (in parallel); later ones one at a time. A number as third argument is the limit.
 */
export async function* mergeSorted<T>(
  sources: readonly AsyncIterator<T>[],
  compare: (a: T, b: T) => number,
  options: number | MergeOptions = {},
): AsyncGenerator<T, void, undefined> {
  const { limit = Number.POSITIVE_INFINITY, distinct = false } = typeof options === 'number' ? { limit: options } : options;
  const heap = new MinHeap<T>(compare);
  try {
    if (limit <= 0) return;
    const firsts = await Promise.all(sources.map((s) => s.next()));
    firsts.forEach((r, src) => {
      if (r.done !== true) heap.push({ value: r.value, src });
    });
    let n = 0;
    let last: { value: T } | undefined;
    for (let top = heap.pop(); top !== undefined; top = heap.pop()) {
      if (!distinct || last === undefined || compare(last.value, top.value) !== 0) {
        yield top.value;
        last = { value: top.value };
        if (++n >= limit) return;
      }
      const source = sources[top.src];
      const r = source === undefined ? undefined : await source.next();
      if (r !== undefined && r.done !== true) heap.push({ value: r.value, src: top.src });
    }
  } finally {
    await Promise.allSettled(sources.map((s) => (s.return === undefined ? Promise.resolve() : s.return())));
  }
}
