// The storage phase's after-raw-retention check (scripts/lib/bench/retention-check.ts): the queries it
// asks, the plans they must take, and the comparison that fails the pass on any difference.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkQueries, compareAnswers, planMatches, seriesAndPoints } from '../../../scripts/lib/bench/retention-check.ts';

void test('one query per downsample, metric and site over the whole day, one series per id', () => {
  const qs = checkQueries({ startTs: 1000, endTs: 5000, metrics: ['temp', 'hum'], sites: ['site-0', 'site-1'] });
  assert.deepEqual(
    qs.map((q) => [q.label, q.plan]),
    [
      ['avg:10m-avg:temp{site=site-0,id=*}', 'raw'],
      ['avg:10m-avg:temp{site=site-1,id=*}', 'raw'],
      ['avg:10m-avg:hum{site=site-0,id=*}', 'raw'],
      ['avg:10m-avg:hum{site=site-1,id=*}', 'raw'],
      ['avg:1h-avg:temp{site=site-0,id=*}', 'rollup'],
      ['avg:1h-avg:temp{site=site-1,id=*}', 'rollup'],
      ['avg:1h-avg:hum{site=site-0,id=*}', 'rollup'],
      ['avg:1h-avg:hum{site=site-1,id=*}', 'rollup'],
    ],
  );
  assert.deepEqual((qs[0]?.body as { start: number; end: number }).start, 1000);
  assert.deepEqual((qs[0]?.body as { start: number; end: number }).end, 4999, 'the end is inclusive in the query language');
});

void test('the plan header must say raw from blocks, or the hourly summaries with no raw bucket', () => {
  assert.equal(planMatches('raw', 'raw;blocks=63049'), true);
  assert.equal(planMatches('raw', 'raw;blocks=12;raw-ranges=0'), true);
  assert.equal(planMatches('raw', 'raw;blocks=0;raw-ranges=3'), false, 'no block read: the data table answered');
  assert.equal(planMatches('raw', 'raw;raw-ranges=3'), false);
  assert.equal(planMatches('rollup', 'rollup:3600s;raw-buckets=0'), true);
  assert.equal(planMatches('rollup', 'rollup:3600s;raw-buckets=4'), false);
  assert.equal(planMatches('rollup', 'rollup:86400s;raw-buckets=0'), false);
});

void test('compareAnswers: equal answers in any order; a missing, extra or changed point or series is named', () => {
  const a = [
    { metric: 'temp', tags: { id: 'a', site: 's' }, aggregateTags: [], dps: { '1': 1.5, '2': 2 } },
    { metric: 'temp', tags: { site: 's', id: 'b' }, aggregateTags: [], dps: { '1': -0 } },
  ];
  assert.deepEqual(compareAnswers(a, [...a].reverse()), { series: 2, points: 3, differences: [], differing: 0 });
  assert.deepEqual(seriesAndPoints(a), { series: 2, points: 3 });
  const changed = [
    { ...a[0], dps: { '1': 1.5, '2': 2.0000001, '3': 4 } },
    { ...a[1], dps: { '1': 0 } },
  ];
  const c = compareAnswers(a, changed);
  assert.equal(c.differing, 3);
  assert.match(c.differences.join('\n'), /at 2: 2, later 2\.0000001/);
  assert.match(c.differences.join('\n'), /at 3: an extra point/);
  assert.match(c.differences.join('\n'), /"b".*at 1: 0, later 0/, '-0 against 0 is a difference');
  const fewer = compareAnswers(a, [a[0]]);
  assert.deepEqual([fewer.differing, /missing/.test(fewer.differences[0] ?? '')], [1, true]);
  assert.match(compareAnswers([a[0]], a).differences[0] ?? '', /extra$/);
  assert.throws(() => compareAnswers({ error: 'x' }, a), /the reference answer: not an array/);
});
