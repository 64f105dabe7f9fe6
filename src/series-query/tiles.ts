// Pure: which parts of a series' scan range a raw read takes from point blocks, and which from the
// data table.
// Design notes: docs/DECISIONS.md#tiles
import type { MarkedWindow } from '../series-data/windows.ts';

export type Tile =
  | {
      readonly kind: 'block';
      readonly sizeMs: number;
      readonly startMs: number;
      /** the part of the window the range holds, when it holds only part (its block read, its points cut to it) */
      readonly part?: { readonly fromMs: number; readonly toMs: number };
    }
  | { readonly kind: 'raw'; readonly fromMs: number; readonly toMs: number };

/** Whether the window of size `sizeMs` starting at `startMs` may be read from its block. */
export type BlockUsable = (sizeMs: number, startMs: number) => boolean;

/**
 * Tiles of [fromMs, toMs), ascending; `sizesMs` finest first, each a multiple of the one before. Adjacent
 * raw tiles are joined. A window of the finest size that the range holds only part of (at either end)
 * is a block tile with that `part` when `blocks.part` allows it (its block is read and cut: one cell
 * instead of a data-table range per id), else raw.
 */
export function tileRange(
  fromMs: number,
  toMs: number,
  sizesMs: readonly number[],
  blocks: BlockUsable | { readonly whole: BlockUsable; readonly part: BlockUsable },
): Tile[] {
  const usable = typeof blocks === 'function' ? blocks : blocks.whole;
  const partUsable = typeof blocks === 'function' ? undefined : blocks.part;
  const out: Tile[] = [];
  const raw = (a: number, b: number): void => {
    const last = out.at(-1);
    if (last?.kind === 'raw' && last.toMs === a) out[out.length - 1] = { kind: 'raw', fromMs: last.fromMs, toMs: b };
    else out.push({ kind: 'raw', fromMs: a, toMs: b });
  };
  const cover = (level: number, a: number, b: number): void => {
    const size = sizesMs[level];
    if (size === undefined) {
      raw(a, b);
      return;
    }
    for (let t = a - (((a % size) + size) % size); t < b; t += size) {
      const lo = Math.max(a, t);
      const hi = Math.min(b, t + size);
      const whole = lo === t && hi === t + size;
      if (whole && usable(size, t)) out.push({ kind: 'block', sizeMs: size, startMs: t });
      else if (!whole && level === 0 && partUsable?.(size, t) === true) out.push({ kind: 'block', sizeMs: size, startMs: t, part: { fromMs: lo, toMs: hi } });
      else cover(level - 1, lo, hi);
    }
  };
  if (fromMs < toMs) cover(sizesMs.length - 1, fromMs, toMs);
  return out;
}

/** Whether a window of `sizeMs` at `startMs` holds a marked window of its size or a finer one (its block may lack late points). */
export function markedWithin(marks: readonly MarkedWindow[], sizeMs: number, startMs: number): boolean {
  return marks.some((m) => m.sizeMs <= sizeMs && m.startMs >= startMs && m.startMs < startMs + sizeMs);
}

/** The block windows of a tiling, by size: runs of consecutive windows as [from, to) of window starts (`parts`: only the windows read in part, or only the whole ones). */
export function blockSpans(tiles: readonly Tile[], parts = false): { sizeMs: number; from: number; to: number }[] {
  const out: { sizeMs: number; from: number; to: number }[] = [];
  for (const t of tiles) {
    if (t.kind !== 'block' || (t.part !== undefined) !== parts) continue;
    const run = out.findLast((r) => r.sizeMs === t.sizeMs);
    if (run !== undefined && run.to === t.startMs) run.to = t.startMs + t.sizeMs;
    else out.push({ sizeMs: t.sizeMs, from: t.startMs, to: t.startMs + t.sizeMs });
  }
  return out;
}

/** `want` minus the parts of it `have` covers (both sorted, disjoint [from, to) lists). */
export function uncovered(
  want: readonly { fromMs: number; toMs: number }[],
  have: readonly { fromMs: number; toMs: number }[],
): { fromMs: number; toMs: number }[] {
  const out: { fromMs: number; toMs: number }[] = [];
  for (const w of want) {
    let a = w.fromMs;
    for (const h of have) {
      if (h.toMs <= a || h.fromMs >= w.toMs) continue;
      if (h.fromMs > a) out.push({ fromMs: a, toMs: h.fromMs });
      a = Math.max(a, h.toMs);
      if (a >= w.toMs) break;
    }
    if (a < w.toMs) out.push({ fromMs: a, toMs: w.toMs });
  }
  return out;
}
