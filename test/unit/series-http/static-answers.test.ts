import { test } from 'node:test';
import assert from 'node:assert/strict';
import { aggregatorsAnswer, filtersAnswer, javaHashMapOrder, javaStringHash, versionAnswer } from '../../../src/series-http/static-answers.ts';
import { AGGREGATOR_NAMES, FILTER_TYPES } from '../../../src/series-language/types.ts';

test('java String.hashCode', () => {
  assert.equal(javaStringHash(''), 0);
  assert.equal(javaStringHash('a'), 97);
  assert.equal(javaStringHash('hello'), 99162322);
  assert.equal(javaStringHash('polygenelubricants'), -2147483648); // the classic Integer.MIN_VALUE hash
});

test('HashMap order: bucket index, insertion order within a bucket', () => {
  // "Aa" and "BB" collide in Java (both 2112): they keep insertion order
  assert.deepEqual(javaHashMapOrder(['BB', 'Aa']), ['BB', 'Aa']);
  assert.deepEqual(javaHashMapOrder(['Aa', 'BB']), ['Aa', 'BB']);
  // one-character keys land in bucket (code & 15): a = 97 → 1, q = 113 → 1 (after a), b = 98 → 2
  assert.deepEqual(javaHashMapOrder(['b', 'a', 'q']), ['a', 'q', 'b']);
});

test('/api/aggregators: every name once, in a Java HashMap order', () => {
  const answer = aggregatorsAnswer();
  assert.equal(answer.length, AGGREGATOR_NAMES.length);
  assert.deepEqual([...answer].sort(), [...AGGREGATOR_NAMES].sort());
  assert.notDeepEqual(answer, [...AGGREGATOR_NAMES]);
});

test('/api/config/filters: every type with description and examples from the Java sources', () => {
  const answer = filtersAnswer();
  assert.deepEqual(Object.keys(answer).sort(), [...FILTER_TYPES].sort());
  assert.deepEqual(Object.keys(answer['regexp'] ?? {}).sort(), ['description', 'examples']);
  assert.match(answer['literal_or']?.['examples'] ?? '', /^host=literal_or\(web01\), {2}host=literal_or\(web01\|web02\|web03\) {2}\{"type":"literal_or"/);
  assert.match(answer['iwildcard']?.['description'] ?? '', /Case insensitivity is achieved by dropping all values to lower case/);
});

test('/api/version says 2.4.1 and names this project', () => {
  const v = versionAnswer({ shortRevision: 'abc1234', timestamp: 1732262400 });
  assert.equal(v['version'], '2.4.1');
  assert.equal(v['repo'], 'ts-hbase-ingest');
  assert.equal(v['short_revision'], 'abc1234');
  assert.equal(v['timestamp'], '1732262400');
  assert.deepEqual(Object.keys(v).sort(), ['branch', 'full_revision', 'host', 'repo', 'repo_status', 'short_revision', 'timestamp', 'user', 'version']);
});
