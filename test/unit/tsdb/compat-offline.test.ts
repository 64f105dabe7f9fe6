// Our computation (parse → pick series → compute/ → render) against OpenTSDB 2.4.1's recorded answers
// to the whole compat suite (test/fixtures/opentsdb-answers/), without a TSD or a server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { compareAnswers } from '../../../scripts/lib/compat/compare.ts';
import { points } from '../../../scripts/lib/compat/dataset.ts';
import { answerOffline, storeOf } from '../../../scripts/lib/compat/offline.ts';
import { readManifest, readRecorded, recordedSets } from '../../../scripts/lib/compat/recording.ts';
import { suite } from '../../../scripts/lib/compat/suite.ts';

const DIR = join(import.meta.dirname, '../../fixtures/opentsdb-answers');

for (const set of recordedSets(DIR)) {
  const m = readManifest(DIR, set);
  const store = storeOf(points(m.dataset));
  const qs = suite(m.dataset);
  const diffsWith = (integerValues: boolean): string[] =>
    qs.flatMap((q) =>
      compareAnswers(q.name, readRecorded(DIR, set, q.name).answer, answerOffline(store, q, { integerValues }))
        // the echo is the HTTP side's to render; here only query.index is, to key the series
        .filter((d) => d.kind !== 'query-echo')
        .map((d) => `${d.query} ${d.kind} ${d.series ?? ''}: ${d.detail}`),
    );

  test(`${set}: every suite answer as 2.4.1 gives it (integer values as longs)`, () => {
    assert.deepEqual(diffsWith(true), []);
  });

  test(`${set}: with every value a double, only the integer-valued cross-series sum differs (long LERP truncates)`, () => {
    const d = diffsWith(false);
    assert.ok(d.length > 0 && d.every((x) => x.startsWith('site-sum-bytes values ')), d.join('\n'));
  });
}
