// Pure: the candidate key layouts `tsingest whatif` compares, their names, and the grid the flags
// ask for (B × format × spreading × index salt mode, plus the unsalted layout).
import { assertBuckets, type IndexSaltMode, type KeyFormat } from '../keys/index.ts';

export type Candidate =
  | {
      readonly kind: 'salted';
      readonly buckets: number;
      readonly format: KeyFormat;
      /** hot ids spread over K buckets (keys.spread), at the steady state of a live stream */
      readonly spread: boolean;
      readonly indexSaltMode: IndexSaltMode;
    }
  /** No salt: keys start with the id; the tables pre-split at quantiles of the sample's ids (tag values). */
  | { readonly kind: 'unsalted'; readonly regions: number };

export function candidateName(c: Candidate): string {
  if (c.kind === 'unsalted') return `unsalted, ${c.regions} regions`;
  return `B${c.buckets} ${c.format} spread ${c.spread ? 'on' : 'off'} index ${c.indexSaltMode}`;
}

export function sameCandidate(a: Candidate, b: Candidate): boolean {
  return candidateName(a) === candidateName(b);
}

export interface GridSpec {
  readonly buckets: readonly number[];
  readonly formats: readonly KeyFormat[];
  readonly spread: readonly boolean[];
  readonly indexSaltModes: readonly IndexSaltMode[];
  /** also the unsalted layout, with as many regions as each B */
  readonly unsalted: boolean;
}

/** Every combination of the spec, the current layout first, without repeats. */
export function candidateGrid(spec: GridSpec, current: Candidate): Candidate[] {
  const out: Candidate[] = [current];
  const add = (c: Candidate): void => {
    if (!out.some((o) => sameCandidate(o, c))) out.push(c);
  };
  for (const buckets of spec.buckets) {
    assertBuckets(buckets);
    for (const format of spec.formats) {
      for (const spread of spec.spread) {
        for (const indexSaltMode of spec.indexSaltModes) add({ kind: 'salted', buckets, format, spread, indexSaltMode });
      }
    }
  }
  if (spec.unsalted) for (const regions of spec.buckets) add({ kind: 'unsalted', regions });
  return out;
}
