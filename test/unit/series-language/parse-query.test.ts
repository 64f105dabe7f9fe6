import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseQueryBody } from '../../../src/series-language/parse-query.ts';
import { errorBody, TsdbQueryError } from '../../../src/series-language/errors.ts';

const NOW = 1732400000000;
const none = new URLSearchParams();

function rejects(body: unknown, field: string, message: RegExp | string, params = none): TsdbQueryError {
  let caught: TsdbQueryError | undefined;
  assert.throws(
    () => parseQueryBody(body, params, NOW),
    (err: unknown) => {
      assert.ok(err instanceof TsdbQueryError);
      caught = err;
      return true;
    },
  );
  assert.ok(caught !== undefined);
  assert.equal(caught.field, field);
  if (typeof message === 'string') assert.equal(caught.message, message);
  else assert.match(caught.message, message);
  return caught;
}

test("Grafana's browser request: ms start, no end, literal_or filter", () => {
  const q = parseQueryBody(
    {
      start: 1732262400000,
      queries: [{ metric: 'temp', aggregator: 'sum', downsample: '1h-avg', filters: [{ type: 'literal_or', tagk: 'site', filter: 'site-3', groupBy: false }] }],
      msResolution: false,
      globalAnnotations: true,
      showQuery: true,
    },
    none,
    NOW,
  );
  assert.equal(q.startMs, 1732262400000);
  assert.equal(q.endMs, NOW);
  assert.equal(q.endGiven, false);
  assert.equal(q.showQuery, true);
  assert.equal(q.msResolution, false);
  assert.equal(q.arrays, false);
  assert.equal(q.timezone, 'UTC');
  assert.equal(q.queries.length, 1);
  const sub = q.queries[0];
  assert.ok(sub !== undefined);
  assert.equal(sub.index, 0);
  assert.equal(sub.metric, 'temp');
  assert.equal(sub.aggregator, 'sum');
  assert.equal(sub.downsample?.intervalMs, 3600000);
  assert.equal(sub.downsample.aggregator, 'avg');
  assert.deepEqual(sub.filters, [{ type: 'literal_or', tagk: 'site', filter: 'site-3', groupBy: false }]);
  assert.equal(sub.rate, false);
  assert.deepEqual(sub.rateOptions, { counter: false, counterMax: 2 ** 63, resetValue: 0, dropResets: false });
});

test("Grafana's server request: seconds, end, ?arrays=true (and arrays=false still means arrays)", () => {
  const body = {
    start: 1732262400,
    end: 1732348800,
    queries: [{ metric: 'temp', aggregator: 'avg', rate: true, rateOptions: { counter: true, counterMax: 1000, resetValue: 5 }, tags: { host: '*' } }],
  };
  const q = parseQueryBody(body, new URLSearchParams('arrays=true'), NOW);
  assert.equal(q.startMs, 1732262400000);
  assert.equal(q.endMs, 1732348800000);
  assert.equal(q.endGiven, true);
  assert.equal(q.arrays, true);
  assert.equal(parseQueryBody(body, new URLSearchParams('arrays=false'), NOW).arrays, true);
  const sub = q.queries[0];
  assert.ok(sub !== undefined);
  assert.equal(sub.rate, true);
  assert.deepEqual(sub.rateOptions, { counter: true, counterMax: 1000, resetValue: 5, dropResets: false });
  assert.deepEqual(
    sub.filters.map((f) => [f.type, f.tagk, f.filter, f.groupBy]),
    [['wildcard', 'host', '*', true]],
  );
});

test('tags and filters: the later key wins, as Jackson calls the setters in document order', () => {
  const filters = [{ type: 'regexp', tagk: 'dc', filter: 'eu.*' }];
  const a = parseQueryBody({ start: '1h-ago', queries: [{ aggregator: 'sum', metric: 'm', tags: { host: 'a|b' }, filters }] }, none, NOW);
  assert.deepEqual(
    a.queries[0]?.filters.map((f) => f.type),
    ['regexp'],
  );
  const b = parseQueryBody({ start: '1h-ago', queries: [{ aggregator: 'sum', metric: 'm', filters, tags: { host: 'a|b' } }] }, none, NOW);
  assert.deepEqual(
    b.queries[0]?.filters.map((f) => [f.type, f.filter, f.groupBy]),
    [['literal_or', 'a|b', true]],
  );
});

test('top-level flags, timezone and calendar; `ms` is not an alias in a 2.4.1 body', () => {
  const q = parseQueryBody(
    {
      start: '2024/11/22',
      end: '2024/11/23 00:00',
      timezone: 'Asia/Shanghai',
      useCalendar: true,
      msResolution: 'true',
      ms: false,
      queries: [{ aggregator: 'max', metric: 'temp', downsample: '1d-max', explicitTags: true }],
    },
    none,
    NOW,
  );
  assert.equal(q.startMs, Date.UTC(2024, 10, 21, 16));
  assert.equal(q.endMs, Date.UTC(2024, 10, 22, 16));
  assert.equal(q.msResolution, true);
  assert.equal(q.timezone, 'Asia/Shanghai');
  assert.equal(q.useCalendar, true);
  assert.equal(q.queries[0]?.downsample?.calendar, true);
  assert.equal(q.queries[0].downsample.timezone, 'Asia/Shanghai');
  assert.equal(q.queries[0].explicitTags, true);
  const ms = parseQueryBody({ start: '1h-ago', ms: true, queries: [{ aggregator: 'sum', metric: 'm' }] }, none, NOW);
  assert.equal(ms.msResolution, false);
});

test('duplicate sub-queries are dropped and indexes follow', () => {
  const sub = { aggregator: 'sum', metric: 'm', filters: [{ type: 'wildcard', tagk: 'h', filter: '*', groupBy: true }] };
  const q = parseQueryBody({ start: '1h-ago', queries: [sub, { ...sub, metric: 'n' }, sub] }, none, NOW);
  assert.deepEqual(
    q.queries.map((s) => [s.index, s.metric]),
    [
      [0, 'm'],
      [1, 'n'],
    ],
  );
});

test('validation errors name the field with OpenTSDB wording', () => {
  const ok = { aggregator: 'sum', metric: 'm' };
  rejects({ queries: [ok] }, 'start', 'Missing start time');
  rejects({ start: 1000, end: 1000, queries: [ok] }, 'end', 'End time [1000000] must be greater than the start time [1000000]');
  rejects({ start: '1h-ago' }, 'queries', 'Missing queries');
  rejects({ start: '1h-ago', queries: [] }, 'queries', 'Missing queries');
  rejects({ start: '1h-ago', queries: [ok, { metric: 'm' }] }, 'queries[1].aggregator', 'Missing the aggregation function');
  rejects({ start: '1h-ago', queries: [{ aggregator: 'Sum', metric: 'm' }] }, 'queries[0].aggregator', 'No such aggregation function: Sum');
  rejects({ start: '1h-ago', queries: [{ aggregator: 'sum' }] }, 'queries[0].metric', 'Missing the metric or tsuids, provide at least one');
  rejects(
    { start: '1h-ago', queries: [ok, { ...ok, metric: 'x', downsample: '1h-none' }] },
    'queries[1].downsample',
    'cannot use the NONE aggregator for downsampling',
  );
  rejects(
    { start: '1h-ago', timezone: 'Nowhere/Land', queries: [{ ...ok, downsample: '1h-avg' }] },
    'timezone',
    'The timezone specification could not be found',
  );
  rejects({ start: 'yesterday', queries: [ok] }, 'start', /^Invalid time: yesterday\./);
  rejects({ start: '1h-ago', queries: [{ ...ok, filters: [{ type: 'literal_or', tagk: 'h' }] }] }, 'queries[0].filters[0]', 'Unable to parse the given JSON');
  rejects(
    { start: '1h-ago', queries: [{ ...ok, rateOptions: { counterMax: 'lots' } }] },
    'queries[0].rateOptions.counterMax',
    'Unable to parse the given JSON',
  );
  rejects({ start: '1h-ago', queries: [{ ...ok, tsuids: ['000001000001000001'] }] }, 'queries[0].tsuids', 'tsuids queries are not supported');
  rejects([1, 2], 'body', 'Unable to parse the given JSON');
  rejects(undefined, 'body', 'Missing message content');
});

test("errorBody renders OpenTSDB's error shape without a trace", () => {
  const err = rejects({ start: '1h-ago', queries: [{ aggregator: 'nope', metric: 'm' }] }, 'queries[0].aggregator', 'No such aggregation function: nope');
  assert.deepEqual(errorBody(err), { error: { code: 400, message: 'No such aggregation function: nope', details: 'field: queries[0].aggregator' } });
  const json = rejects(
    { start: '1h-ago', queries: [{ aggregator: 'sum', metric: 'm', filters: [{ type: 'x', tagk: 'h', filter: 'y' }] }] },
    'queries[0].filters[0]',
    'Unable to parse the given JSON',
  );
  assert.deepEqual(JSON.parse(JSON.stringify(errorBody(json))), {
    error: { code: 400, message: 'Unable to parse the given JSON', details: 'Could not find a tag value filter of the type: x' },
  });
});
