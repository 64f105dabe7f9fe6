import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseMSubQuery, parseQueryString, parseRateSpec } from '../../../src/series-language/parse-m.ts';
import { TsdbQueryError } from '../../../src/series-language/errors.ts';

const NOW = 1732400000000;
const parse = (qs: string) => parseQueryString(new URLSearchParams(qs), NOW);

function rejects(qs: string, field: string, message: RegExp | string): void {
  assert.throws(
    () => parse(qs),
    (err: unknown) => {
      assert.ok(err instanceof TsdbQueryError);
      assert.equal(err.field, field);
      if (typeof message === 'string') assert.equal(err.message, message);
      else assert.match(err.message, message);
      return true;
    },
  );
}

test('the full m= form: aggregator, downsample, rate with options, groupBy and filter groups', () => {
  const q = parse(`start=1732262400&end=1732348800&m=${encodeURIComponent('sum:1h-avg:rate{counter,,1000}:temp{site=site-3}{host=*}')}`);
  assert.equal(q.startMs, 1732262400000);
  assert.equal(q.endMs, 1732348800000);
  const sub = q.queries[0];
  assert.ok(sub !== undefined);
  assert.equal(sub.aggregator, 'sum');
  assert.equal(sub.metric, 'temp');
  assert.equal(sub.downsample?.spec, '1h-avg');
  assert.equal(sub.rate, true);
  assert.deepEqual(sub.rateOptions, { counter: true, counterMax: 2 ** 63, resetValue: 1000, dropResets: false });
  // the second group's non-groupBy filters come first, as Tags.parseWithMetricAndFilters adds them
  assert.deepEqual(
    sub.filters.map((f) => [f.type, f.tagk, f.filter, f.groupBy]),
    [
      ['wildcard', 'host', '*', false],
      ['literal_or', 'site', 'site-3', true],
    ],
  );
});

test('several m=, flags by presence only, last start wins, explicit_tags, duplicates dropped', () => {
  const q = parse('start=1h-ago&start=2h-ago&ms=false&show_query&arrays=false&m=sum:temp&m=avg:explicit_tags:temp{host=web01|web02}&m=sum:temp');
  assert.equal(q.startMs, NOW - 7200000);
  assert.equal(q.msResolution, true);
  assert.equal(q.showQuery, true);
  assert.equal(q.arrays, true);
  assert.equal(q.timezone, 'UTC');
  assert.deepEqual(
    q.queries.map((s) => [s.index, s.aggregator, s.explicitTags]),
    [
      [0, 'sum', false],
      [1, 'avg', true],
    ],
  );
  assert.deepEqual(q.queries[1]?.filters, [{ type: 'literal_or', tagk: 'host', filter: 'web01|web02', groupBy: true }]);
  const plain = parse('start=1h-ago&m=sum:temp');
  assert.equal(plain.msResolution, false);
  assert.equal(plain.arrays, false);
});

test('filters inside braces: type(expr), equal filters merge and only gain groupBy', () => {
  const sub = parseMSubQuery('sum:temp{host=a}{host=a,dc=regexp(eu.*)}', 'm[0]');
  assert.deepEqual(
    sub.filters?.map((f) => [f.type, f.tagk, f.filter, f.groupBy]),
    [
      ['literal_or', 'host', 'a', true],
      ['regexp', 'dc', 'eu.*', false],
    ],
  );
  const empty = parseMSubQuery('sum:temp{}{host=iwildcard(Web*)}', 'm[0]');
  assert.equal(empty.metric, 'temp');
  assert.deepEqual(
    empty.filters?.map((f) => [f.type, f.groupBy]),
    [['iwildcard', false]],
  );
  assert.equal(parseMSubQuery('sum:temp{}', 'm[0]').metric, 'temp');
});

test('rate options: QueryRpc.parseRateOptions', () => {
  assert.deepEqual(parseRateSpec('rate{counter,100,5}', 'f'), { counter: true, counterMax: 100, resetValue: 5, dropResets: false });
  assert.deepEqual(parseRateSpec('rate{dropcounter}', 'f'), { counter: true, counterMax: 2 ** 63, resetValue: 0, dropResets: true });
  assert.deepEqual(parseRateSpec('rate{}', 'f'), { counter: false, counterMax: 2 ** 63, resetValue: 0, dropResets: false });
  assert.throws(() => parseRateSpec('rate{', 'f'), /^TsdbQueryError: Invalid rate options specification: rate\{$/);
  assert.throws(() => parseRateSpec('rate{counter,1,2,3}', 'f'), /recieved: 4 parts/);
  assert.throws(() => parseRateSpec('rate{counter,x}', 'f'), /Max value of counter was not a number, received 'x'/);
  assert.throws(() => parseRateSpec('rate{counter,1,y}', 'f'), /Reset value of counter was not a number, received 'y'/);
});

test('errors name the m= parameter with OpenTSDB wording', () => {
  rejects('m=sum:temp', 'start', 'Missing parameter <code>start</code>');
  rejects('start=1h-ago', 'm', 'Missing sub queries');
  rejects('start=1h-ago&m=', 'm[0]', 'The query string was empty');
  rejects('start=1h-ago&m=temp', 'm[0]', 'Invalid parameter m=temp (not enough :-separated parts)');
  rejects('start=1h-ago&m=a:b:c:d:e:f', 'm[0]', 'Invalid parameter m=a:b:c:d:e:f (too many :-separated parts)');
  rejects('start=1h-ago&m=sum:1h-foo:temp&m=x', 'm[1]', /not enough/);
  rejects('start=1h-ago&m=sum:temp&m=sum:1h-foo:temp', 'm[1].downsample', 'No such downsampling function: foo');
  rejects('start=1h-ago&m=bogus:temp', 'm[0].aggregator', 'No such aggregation function: bogus');
  rejects('start=1h-ago&m=sum:temp{host=a', 'm[0]', "Missing '}' at the end of: temp{host=a");
  rejects('start=1h-ago&m=sum:temp{host}', 'm[0]', "When parsing tag 'host': invalid tag: host");
  rejects('start=1h-ago&m=sum:temp{}{host=nosuch(x)}', 'm[0]', "When parsing filter 'host=nosuch(x)': Could not find a tag value filter of the type: nosuch");
  rejects('start=1h-ago&m=sum:temp{host=a,}', 'm[0]', "When parsing tag '': invalid tag: ");
  rejects('start=1h-ago&m=sum:rate{counter,abc}:temp', 'm[0].rate', "Max value of counter was not a number, received 'abc'");
  rejects('start=1h-ago&m=sum::temp', 'm[0]', /empty :-separated part/);
  rejects('start=1h-ago&tsuid=sum:000001000001000001', 'tsuid', 'tsuid queries are not supported');
  rejects('start=2h-ago&end=3h-ago&m=sum:temp', 'end', /^End time \[\d+\] must be greater than the start time \[\d+\]$/);
});
