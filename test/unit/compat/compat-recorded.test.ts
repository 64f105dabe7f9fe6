// The recorded OpenTSDB 2.4.1 answers (test/fixtures/opentsdb-answers/, `npm run compat:opentsdb --
// --record`): they still match the suite's requests, and they show the behaviours docs and code rely
// on (/work/shared/OPENTSDB-NOTES.md), so a re-recording that changes them is noticed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { compareAnswers } from '../../../scripts/lib/compat/compare.ts';
import { windows, suite } from '../../../scripts/lib/compat/suite.ts';
import { readManifest, readRecorded, recordedSets } from '../../../scripts/lib/compat/recording.ts';
import { points } from '../../../scripts/lib/compat/dataset.ts';

const DIR = join(import.meta.dirname, '../../fixtures/opentsdb-answers');
const sets = recordedSets(DIR);

type S = { metric: string; tags: Record<string, string>; dps: Record<string, unknown> | [number, unknown][] };
const body = (set: string, name: string): S[] => readRecorded(DIR, set, name).answer.body as S[];
const keys = (s: S | undefined): number[] => (s === undefined ? [] : Array.isArray(s.dps) ? s.dps.map((p) => p[0]) : Object.keys(s.dps).map(Number));

test('recorded: the small set at least', () => {
  assert.ok(sets.includes('small'), `recorded sets: ${sets.join(', ')}`);
});

for (const set of sets) {
  const m = readManifest(DIR, set);
  const qs = suite(m.dataset);

  test(`${set}: recorded by 2.4.1, every suite request as the suite sends it now`, () => {
    assert.match(m.tsdVersion, /^2\.4\.1 /);
    assert.equal(m.points, points(m.dataset).length);
    assert.deepEqual(
      m.queries.map((q) => q.name),
      qs.map((q) => q.name),
    );
    for (const q of qs) {
      const r = readRecorded(DIR, set, q.name);
      assert.deepEqual({ method: r.method, path: r.path, body: r.body }, { method: q.method, path: q.path, body: q.body }, q.name);
      assert.equal(r.answer.status >= 400, q.expectError, `${q.name}: ${r.answer.status}`);
      assert.deepEqual(compareAnswers(q.name, r.answer, r.answer), [], q.name);
    }
  });

  test(`${set}: the NOTES' behaviours`, () => {
    const w = windows(m.dataset);
    // aligned 6 h at 5m: 73 buckets, the one at `end` kept (and zero-filled here)
    const zero = body(set, 'fill-5m-sum-zero')[0];
    assert.equal(keys(zero).length, 73);
    assert.equal(keys(zero).at(-1), w.w6.end / 1000);
    // 0all: one point stamped with the query's start
    for (const s of body(set, 'all-count')) assert.deepEqual(keys(s), [w.full.start / 1000]);
    // fills: nan as "NaN", null as null (in arrays too), zero as 0
    assert.ok(Object.values(body(set, 'fill-1h-avg-nan')[0]?.dps ?? {}).includes('NaN'));
    assert.ok(Object.values(body(set, 'fill-1h-avg-null')[0]?.dps ?? {}).includes(null));
    const arrays = body(set, 'output-arrays')[0]?.dps;
    assert.ok(Array.isArray(arrays) && arrays.some((p) => p[1] === null));
    // presence-only: arrays=false still gives arrays
    assert.ok(Array.isArray(body(set, 'get-m-arrays')[0]?.dps));
    // a partial first bucket is dropped: the first key is the first boundary after the start
    const unaligned = readRecorded(DIR, set, 'time-unaligned-start');
    const start = (unaligned.body as { start: number }).start;
    assert.equal(keys(body(set, 'time-unaligned-start')[0])[0], (Math.ceil(start / 300_000) * 300_000) / 1000);
    // ms keys with msResolution, seconds without
    assert.ok(keys(body(set, 'time-ms')[0]).every((t) => t > 1e12));
    assert.ok(keys(body(set, 'time-seconds')[0]).every((t) => t < 1e11));
    // regexp unanchored: `0[23]` matches ids ending in 02/03 of every site
    assert.deepEqual(
      body(set, 'filter-regexp')
        .map((s) => s.tags['id'])
        .sort(),
      ['n02', 'n03', 's02', 's03', 'w02', 'w03'],
    );
    // an unknown literal tag value is a 400; a wildcard matching nothing is []
    assert.equal(readRecorded(DIR, set, 'error-unknown-tagv').answer.status, 400);
    assert.deepEqual(readRecorded(DIR, set, 'filter-no-match').answer.body, []);
  });
}
