// `tsingest index verify`: both directions over every scan unit (data buckets and index buckets per
// tag), bounded parallelism, read-only. Consistent = no dangling and no missing index rows.
import { runLimited } from '../toolkit/pool.ts';
import { unitChunks, type ChunkOutcome, type IndexStore } from './passes.ts';
import type { ProgressTracker } from './index-progress.ts';
import { dataUnits, indexUnits, type IndexToolSettings } from './index-settings.ts';
import { Tally, type Counts, type Samples } from './tally.ts';

export interface VerifyOptions {
  /** Rows per scan chunk and multi-get. */
  readonly chunkSize: number;
  /** Scan units run at once. */
  readonly concurrency: number;
  /** Samples kept per kind of finding. */
  readonly sampleSize: number;
  readonly signal?: AbortSignal | undefined;
  readonly progress?: ProgressTracker | undefined;
}

export interface VerifyReport {
  /** No dangling and no missing index rows (malformed rows are reported, not judged). */
  readonly consistent: boolean;
  /** Stopped early by the signal: the counts cover only part of the tables. */
  readonly interrupted: boolean;
  readonly counts: Readonly<Counts>;
  readonly samples: Samples;
}

/** Adds one checked chunk to the tally (shared with rebuild). */
export function tallyChunk(tally: Tally, chunk: ChunkOutcome): void {
  if (chunk.unit.kind === 'data') tally.counts.dataRowsChecked += chunk.scanned;
  else tally.counts.indexRowsChecked += chunk.scanned;
  tally.dangling(chunk.dangling);
  tally.missing(chunk.missing);
  tally.malformed(chunk.malformed);
}

export async function verifyIndex(store: IndexStore, s: IndexToolSettings, opts: VerifyOptions): Promise<VerifyReport> {
  const tally = new Tally(opts.sampleSize);
  const units = [...dataUnits(s), ...indexUnits(s)];
  const { signal, progress } = opts;
  await runLimited(
    units,
    opts.concurrency,
    async (unit) => {
      for await (const chunk of unitChunks(store, s, unit, { after: null, chunkSize: opts.chunkSize })) {
        tallyChunk(tally, chunk);
        progress?.add({ rowsScanned: chunk.scanned, dangling: chunk.dangling.length, missing: chunk.missing.length });
        progress?.advance(unit.id, chunk.position);
        if (chunk.done) progress?.unitDone(unit.id);
        if (signal?.aborted === true) return;
      }
    },
    signal,
  );
  const interrupted = signal?.aborted === true;
  const c = tally.counts;
  return { consistent: !interrupted && c.dangling === 0 && c.missing === 0, interrupted, counts: { ...c }, samples: tally.samples };
}
