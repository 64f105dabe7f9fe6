// Pure: the documented divergences from OpenTSDB 2.4.1 (docs/SERIES-API-DIVERGENCES.json) and the
// split of a comparison's differences into documented ones and failures. An entry covers a
// difference when its `query` pattern matches the query name (`*` matches any run of characters) and
// its `kind` is the difference's kind or `*`.
import { DIFF_KINDS, type DiffKind, type Difference } from './compare.ts';

export interface Divergence {
  /** a query name, or a pattern with `*` (e.g. `rate-*`) */
  readonly query: string;
  /** the kind of difference covered, or `*` for any */
  readonly kind: DiffKind | '*';
  /** what differs, in words */
  readonly what: string;
  /** why we differ on purpose */
  readonly why: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Validates the file's parsed JSON: `{ "divergences": [ {query, kind, what, why}, … ] }`. */
export function parseDivergences(json: unknown): Divergence[] {
  const list = isRecord(json) ? json['divergences'] : undefined;
  if (!Array.isArray(list)) throw new Error('divergences: expected {"divergences": [...]}');
  return list.map((e, i) => {
    if (!isRecord(e)) throw new Error(`divergences[${i}]: not an object`);
    const { query, kind, what, why } = e;
    if (typeof query !== 'string' || query === '') throw new Error(`divergences[${i}].query: a non-empty string`);
    if (kind !== '*' && !(DIFF_KINDS as readonly unknown[]).includes(kind)) throw new Error(`divergences[${i}].kind: one of *, ${DIFF_KINDS.join(', ')}`);
    if (typeof what !== 'string' || what === '' || typeof why !== 'string' || why === '') throw new Error(`divergences[${i}]: what and why must say something`);
    return { query, kind: kind as Divergence['kind'], what, why };
  });
}

function patternRegExp(p: string): RegExp {
  return new RegExp(
    `^${p
      .split('*')
      .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
}

export function covers(d: Divergence, diff: Difference): boolean {
  return (d.kind === '*' || d.kind === diff.kind) && patternRegExp(d.query).test(diff.query);
}

export interface Classified {
  readonly documented: readonly { readonly diff: Difference; readonly by: Divergence }[];
  readonly failures: readonly Difference[];
}

export function classify(diffs: readonly Difference[], divergences: readonly Divergence[]): Classified {
  const documented: { diff: Difference; by: Divergence }[] = [];
  const failures: Difference[] = [];
  for (const diff of diffs) {
    const by = divergences.find((d) => covers(d, diff));
    if (by === undefined) failures.push(diff);
    else documented.push({ diff, by });
  }
  return { documented, failures };
}
