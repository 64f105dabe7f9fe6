// A rollup plan's bucket assembly (src/series-query/read-summaries.ts): the raw buckets of an id's points, merged with
// the buckets its summaries fold into.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mergeBuckets, rawBucketValues } from '../../../src/series-query/read-summaries.ts';
import { tagSetKey } from '../../../src/series-data/points.ts';

const H = 3_600_000;
const sum = (v: number[]): number => v.reduce((a, b) => a + b, 0);

test('rawBucketValues: only the raw buckets, each folded by the aggregator, ascending', () => {
  const points = [{ ts: [0, 10, H + 1, H + 2, 2 * H + 5], values: [1, 2, 3, 4, 5] }];
  assert.deepEqual(rawBucketValues(points, new Set([H, 2 * H]), H, sum), { ts: [H, 2 * H], values: [7, 5] });
  assert.deepEqual(rawBucketValues(points, new Set([0]), H, sum), { ts: [0], values: [3] });
  assert.deepEqual(rawBucketValues(points, new Set([5 * H]), H, sum), { ts: [], values: [] });
});

test('rawBucketValues: lists of several ranges out of time order come out ascending', () => {
  const later = { ts: [3 * H + 1], values: [30] };
  const earlier = { ts: [H + 1, H + 9], values: [10, 11] };
  assert.deepEqual(rawBucketValues([later, earlier], new Set([H, 3 * H]), H, sum), { ts: [H, 3 * H], values: [21, 30] });
});

test('mergeBuckets: disjoint ascending lists merged ascending, either order of ranges', () => {
  const summaries = { ts: [0, H, 2 * H], values: [1, 2, 3] };
  assert.deepEqual(mergeBuckets(summaries, { ts: [3 * H], values: [4] }), { ts: [0, H, 2 * H, 3 * H], values: [1, 2, 3, 4] });
  assert.deepEqual(mergeBuckets(summaries, { ts: [-H, 1.5 * H], values: [9, 8] }), { ts: [-H, 0, H, 1.5 * H, 2 * H], values: [9, 1, 2, 8, 3] });
  assert.deepEqual(mergeBuckets({ ts: [], values: [] }, { ts: [H], values: [5] }), { ts: [H], values: [5] });
  assert.deepEqual(mergeBuckets(summaries, { ts: [], values: [] }), summaries);
});

test('tagSetKey: a frozen tag object keeps its key per id tag key; a plain one is read each time', () => {
  const frozen = Object.freeze({ site: 's1', id: 'a', room: 'r' });
  assert.equal(tagSetKey(frozen, 'id'), '[["room","r"],["site","s1"]]');
  assert.equal(tagSetKey(frozen, 'id'), '[["room","r"],["site","s1"]]');
  assert.equal(tagSetKey(frozen, 'site'), '[["id","a"],["room","r"]]');
  const plain: Record<string, string> = { site: 's1', id: 'a' };
  assert.equal(tagSetKey(plain, 'id'), '[["site","s1"]]');
  plain['site'] = 's2';
  assert.equal(tagSetKey(plain, 'id'), '[["site","s2"]]');
});
