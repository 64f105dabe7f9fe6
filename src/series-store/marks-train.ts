// Marker reads asked at nearly the same time share one read. The panels of a dashboard refresh each
// read the pending markers of the same buckets (the window cache's check of the windows it holds,
// the answer memo's probe): seven site-wide panels were 7 × 16 scans per refresh, nearly all empty.
// An ask boards a train that leaves `lingerMs` after its first ask, or as soon as the one before it
// is back; an ask made while a read is under way waits for the next (a read that began before the
// ask could miss a marker written just before it). A train reads the union of its asks (their ids,
// every size asked, from the earliest start to the latest end), and each ask is answered exactly
// the marks a read of its own span would have found. Pure apart from the timer.
// Design notes: docs/DECISIONS.md#marker-trains
import { sharedBudget, type PointBudget } from '../series-data/points.ts';
import { markWindows, type MarkedWindow, type MarkSpan } from '../series-data/windows.ts';

export type MarksRead = (ids: readonly string[], span: MarkSpan, budget: PointBudget, concurrency: number | undefined) => Promise<Map<string, MarkedWindow[]>>;

/** One span whose windows hold every window of each of `spans` (none of which has stampedSince). */
export function unionSpan(spans: readonly MarkSpan[]): MarkSpan {
  const sizesMs = [...new Set(spans.flatMap((s) => s.sizesMs))].sort((a, b) => a - b);
  const from = Math.min(...spans.map((s) => s.from));
  const to = Math.max(...spans.map((s) => s.to));
  const open = spans.some((s) => s.closedBy === undefined);
  return open ? { sizesMs, from, to } : { sizesMs, from, to, closedBy: Math.max(...spans.map((s) => s.closedBy as number)) };
}

/** The marks of `ids` in the windows `span` asks, out of `got` (a read of a span holding them). */
export function marksFor(got: ReadonlyMap<string, readonly MarkedWindow[]>, ids: readonly string[], span: MarkSpan): Map<string, MarkedWindow[]> {
  const windows = markWindows(span);
  const out = new Map<string, MarkedWindow[]>();
  for (const id of ids) {
    const list = got.get(id);
    if (list === undefined) continue;
    const mine = list.filter((m) => {
      const w = windows.get(m.sizeMs);
      return w !== undefined && m.startMs >= w[0] && m.startMs < w[1];
    });
    if (mine.length > 0) out.set(id, mine);
  }
  return out;
}

interface Ask {
  readonly ids: readonly string[];
  readonly span: MarkSpan;
  readonly budget: PointBudget;
  readonly concurrency: number | undefined;
  readonly resolve: (v: Map<string, MarkedWindow[]>) => void;
  readonly reject: (err: unknown) => void;
}

export interface MarksTrainOptions {
  readonly lingerMs: number;
  /** asks over fewer ids read on their own at once (a few ids' buckets must not wait behind a read of every bucket) */
  readonly minIds: number;
}

export const MARKS_TRAIN: MarksTrainOptions = { lingerMs: 5, minIds: 64 };

/** `read` with asks at nearly the same time sharing one read (the top of this file). */
export function marksTrain(read: MarksRead, o: MarksTrainOptions = MARKS_TRAIN): MarksRead {
  let waiting: Ask[] = [];
  let busy = false;
  let timer: NodeJS.Timeout | undefined;
  const depart = (): void => {
    timer = undefined;
    if (busy || waiting.length === 0) return;
    const asks = waiting;
    waiting = [];
    busy = true;
    void run(asks).finally(() => {
      busy = false;
      // asks made while this read was under way leave at once: they have waited already
      if (waiting.length > 0) depart();
    });
  };
  const run = async (asks: readonly Ask[]): Promise<void> => {
    const live = new Set(asks);
    // a point budget here only checks the deadline (marker reads take no points)
    const budget = sharedBudget(live, 'marker read');
    const ids = [...new Set(asks.flatMap((a) => a.ids))];
    const concurrency = Math.max(...asks.map((a) => a.concurrency ?? 4));
    let got: Map<string, MarkedWindow[]>;
    try {
      got = await read(ids, unionSpan(asks.map((a) => a.span)), budget, concurrency);
    } catch (err) {
      for (const a of live) a.reject(err);
      return;
    }
    for (const a of live) a.resolve(marksFor(got, a.ids, a.span));
  };
  return (ids, span, budget, concurrency) => {
    if (span.stampedSince !== undefined || ids.length < o.minIds || markWindows(span).size === 0) return read(ids, span, budget, concurrency);
    return new Promise((resolve, reject) => {
      waiting.push({ ids, span, budget, concurrency, resolve, reject });
      if (!busy && timer === undefined) timer = setTimeout(depart, o.lingerMs);
    });
  };
}
