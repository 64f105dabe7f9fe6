// Brute-force expectation for rollup tests: every summary computed straight from the event list
// (duplicates of id + ts + metric collapse to the last one written), independent of the job's code.
import { decodeRollupKey } from '../../../src/keys/index.ts';
import { decodePointsBlock } from '../../../src/rollup/points-block.ts';
import { decodeSummary, type MetricSummary } from '../../../src/rollup/summary.ts';
import { summaryOfRun } from '../../../src/rollup/window-content.ts';

export { prng } from '../../../src/demo/generate.ts';

export interface Ev {
  readonly id: string;
  readonly ts: number;
  readonly metric: string;
  readonly value: number;
}

export type SummaryMap = Map<string, MetricSummary>;

export const summaryKey = (id: string, windowSec: number, start: number, metric: string): string => `${id}|${windowSec}|${start}|${metric}`;

/** Expected summaries of every window size (seconds) for the events (later duplicates win). */
export function bruteSummaries(events: readonly Ev[], windowSecs: readonly number[]): SummaryMap {
  const unique = new Map<string, Ev>();
  for (const e of events) unique.set(`${e.id}|${e.ts}|${e.metric}`, e);
  const groups = new Map<string, Ev[]>();
  for (const sec of windowSecs) {
    const ms = sec * 1000;
    for (const e of unique.values()) {
      const start = Math.floor(e.ts / ms) * ms;
      const k = summaryKey(e.id, sec, start, e.metric);
      const list = groups.get(k) ?? [];
      list.push(e);
      groups.set(k, list);
    }
  }
  const out: SummaryMap = new Map();
  for (const [k, list] of groups) {
    const byTs = [...list].sort((a, b) => a.ts - b.ts);
    const first = byTs[0] as Ev;
    const last = byTs[byTs.length - 1] as Ev;
    out.set(k, {
      count: list.length,
      sum: list.reduce((s, e) => s + e.value, 0),
      min: Math.min(...list.map((e) => e.value)),
      max: Math.max(...list.map((e) => e.value)),
      firstTs: first.ts,
      first: first.value,
      lastTs: last.ts,
      last: last.value,
    });
  }
  return out;
}

/** A rollup table row as a scan returns it (without a family, a cell is a summary or a reserved cell). */
export interface StoredRowLike {
  readonly row: Buffer;
  readonly cells: readonly { readonly qualifier: Buffer; readonly value: Buffer; readonly family?: Buffer }[];
}

/** The family of point blocks in the rollup tests (settings() in job-fixture.ts). */
export const BLOCK_FAMILY = 'p';

/**
 * Summaries found in the rollup table's rows (markers and packs skipped): each metric's summary cell,
 * or, with none, the one its block stands for (its points folded newest first, as the job folds them).
 */
export function summariesOfRows(rows: Iterable<StoredRowLike>): SummaryMap {
  const out: SummaryMap = new Map();
  for (const row of rows) {
    if (row.row[1] === 0x00) continue;
    const k = decodeRollupKey(row.row);
    const blocks = new Map<string, Buffer>();
    for (const c of row.cells) {
      if (c.qualifier[0] === 0x00) continue;
      const metric = c.qualifier.toString('utf8');
      if (c.family?.toString('utf8') === BLOCK_FAMILY) blocks.set(metric, c.value);
      else out.set(summaryKey(k.id, k.windowSec, k.windowStart, metric), decodeSummary(c.value, metric));
    }
    for (const [metric, block] of blocks) {
      const key = summaryKey(k.id, k.windowSec, k.windowStart, metric);
      if (!out.has(key)) out.set(key, summaryOfRun(decodePointsBlock(block, k.windowStart, k.windowSec * 1000)));
    }
  }
  return out;
}

/** Expected points of every window (sizes in seconds), by summaryKey: ascending (later duplicates win). */
export function brutePoints(events: readonly Ev[], windowSecs: readonly number[]): Map<string, { ts: number[]; values: number[] }> {
  const unique = new Map<string, Ev>();
  for (const e of events) unique.set(`${e.id}|${e.ts}|${e.metric}`, e);
  const out = new Map<string, { ts: number[]; values: number[] }>();
  for (const sec of windowSecs) {
    const ms = sec * 1000;
    for (const e of [...unique.values()].sort((a, b) => a.ts - b.ts)) {
      const k = summaryKey(e.id, sec, Math.floor(e.ts / ms) * ms, e.metric);
      const run = out.get(k) ?? { ts: [], values: [] };
      out.set(k, run);
      run.ts.push(e.ts);
      run.values.push(e.value);
    }
  }
  return out;
}

/** Point blocks found in the rollup table's rows (cells with a family), decoded, by summaryKey. */
export function blocksOfRows(rows: Iterable<StoredRowLike>): Map<string, { ts: number[]; values: number[] }> {
  const out = new Map<string, { ts: number[]; values: number[] }>();
  for (const row of rows) {
    if (row.row[1] === 0x00) continue;
    const k = decodeRollupKey(row.row);
    for (const c of row.cells) {
      if (c.family?.toString('utf8') !== BLOCK_FAMILY) continue;
      const metric = c.qualifier.toString('utf8');
      out.set(summaryKey(k.id, k.windowSec, k.windowStart, metric), decodePointsBlock(c.value, k.windowStart, k.windowSec * 1000));
    }
  }
  return out;
}

/** Sorted point runs, for readable deepEqual diffs. */
export function sortedRuns(m: Map<string, { ts: number[]; values: number[] }>): [string, { ts: number[]; values: number[] }][] {
  return [...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Sorted entries, for readable deepEqual diffs. */
export function sorted(m: SummaryMap): [string, MetricSummary][] {
  return [...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
