// Our computation (parse → pick series → compute/ → render) against OpenTSDB 2.4.1's recorded answers
// to the whole compat suite (test/fixtures/opentsdb-answers/), without a TSD or a server.
// In the TSD's own series order (from the tsuids it recorded, tsd-order.ts) every answer is 2.4.1's;
// in ours (name order), first, last and diff across series (`order-*`) differ in values only, as
// docs/SERIES-API-DIVERGENCES.json declares.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compareAnswers, type Difference } from '../../../scripts/lib/compat/compare.ts';
import { points } from '../../../scripts/lib/compat/dataset.ts';
import { classify, parseDivergences } from '../../../scripts/lib/compat/divergences.ts';
import { answerOffline, storeOf } from '../../../scripts/lib/compat/offline.ts';
import { readManifest, readRecorded, recordedSets } from '../../../scripts/lib/compat/recording.ts';
import { suite } from '../../../scripts/lib/compat/suite.ts';
import { COMPAT_SALT_BUCKETS, tsdSeriesOrder, tsuidsOfAnswer } from '../../../scripts/lib/compat/tsd-order.ts';

const DIR = join(import.meta.dirname, '../../fixtures/opentsdb-answers');
const divergences = parseDivergences(JSON.parse(readFileSync(join(import.meta.dirname, '../../../docs/SERIES-API-DIVERGENCES.json'), 'utf8')));
const line = (d: Difference): string => `${d.query} ${d.kind} ${d.series ?? ''}: ${d.detail}`;

for (const set of recordedSets(DIR)) {
  const m = readManifest(DIR, set);
  const store = storeOf(points(m.dataset));
  const qs = suite(m.dataset);
  const tsuids = tsuidsOfAnswer(readRecorded(DIR, set, 'tsuids-none').answer.body);
  const tsdOrder = (metric: string): ReturnType<typeof tsdSeriesOrder> => tsdSeriesOrder(tsuids, metric, COMPAT_SALT_BUCKETS);
  const diffsWith = (integerValues: boolean, inTsdOrder: boolean): Difference[] =>
    qs.flatMap((q) =>
      compareAnswers(
        q.name,
        readRecorded(DIR, set, q.name).answer,
        answerOffline(store, q, { integerValues }, { nowMs: Date.now(), orderOf: inTsdOrder ? tsdOrder : undefined }),
        // the echo is the HTTP side's to render; here only query.index is, to key the series
      ).filter((d) => d.kind !== 'query-echo'),
    );

  test(`${set}: every suite answer as 2.4.1 gives it, in the TSD's series order (integer values as longs)`, () => {
    assert.deepEqual(diffsWith(true, true).map(line), []);
  });

  test(`${set}: in name order, only first/last/diff across series differ, in values, each a documented divergence`, () => {
    const d = diffsWith(true, false);
    assert.ok(
      d.every((x) => x.query.startsWith('order-') && x.kind === 'values'),
      d.map(line).join('\n'),
    );
    assert.ok(d.length > 0, "name order is not this TSD's order: the order-* answers show it");
    const c = classify(d, divergences);
    assert.deepEqual(c.failures.map(line), []);
    assert.equal(c.documented.length, d.length);
  });

  test(`${set}: with every value a double, only the integer-valued cross-series sum differs (long LERP truncates)`, () => {
    const d = diffsWith(false, true).map(line);
    assert.ok(d.length > 0 && d.every((x) => x.startsWith('site-sum-bytes values ')), d.join('\n'));
  });
}
