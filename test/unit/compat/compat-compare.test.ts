import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareAnswers, echoDigest, MAX_POINT_DIFFS, seriesKey, valuesEqual } from '../../../scripts/lib/compat/compare.ts';
import { classify, parseDivergences } from '../../../scripts/lib/compat/divergences.ts';

const series = (tags: Record<string, string>, dps: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  metric: 'temp',
  tags,
  aggregateTags: ['id'],
  dps,
  ...extra,
});
const ok = (...s: unknown[]): { status: number; body: unknown } => ({ status: 200, body: s });

test('identical answers, series in another order: no difference', () => {
  const a = series({ site: 'north' }, { 1000: 1.5, 1060: 2 });
  const b = series({ site: 'south' }, { 1000: 3 });
  assert.deepEqual(compareAnswers('q', ok(a, b), ok(b, a)), []);
});

test('tags and aggregateTags are keys, order-free inside them', () => {
  assert.equal(
    seriesKey({ metric: 'm', tags: { b: '2', a: '1' }, aggregateTags: ['y', 'x'] }),
    seriesKey({ metric: 'm', tags: { a: '1', b: '2' }, aggregateTags: ['x', 'y'] }),
  );
  const d = compareAnswers('q', ok(series({ site: 'north' }, { 1: 1 })), ok({ ...series({ site: 'north' }, { 1: 1 }), aggregateTags: [] }));
  assert.deepEqual(
    d.map((x) => x.kind),
    ['series-missing', 'series-extra'],
  );
});

test('values equal within relative 1e-9, absolute near 0', () => {
  assert.ok(valuesEqual(1e6, 1e6 * (1 + 5e-10)));
  assert.ok(!valuesEqual(1e6, 1e6 * (1 + 5e-9)));
  assert.ok(valuesEqual(0, 1e-13));
  assert.ok(!valuesEqual(0, 1e-6));
  assert.ok(valuesEqual('NaN', 'NaN'));
  assert.ok(!valuesEqual('NaN', null));
  assert.ok(!valuesEqual(null, 0));
  assert.ok(valuesEqual(null, null));
});

test('NaN only against NaN, null only against null', () => {
  const ref = ok(series({}, { 1: 'NaN', 2: null, 3: 0 }));
  assert.deepEqual(compareAnswers('q', ref, ok(series({}, { 1: 'NaN', 2: null, 3: 0 }))), []);
  const d = compareAnswers('q', ref, ok(series({}, { 1: null, 2: 'NaN', 3: 0 })));
  assert.equal(d.length, 1);
  assert.equal(d[0]?.kind, 'values');
  assert.match(d[0].detail, /2 of 3 values differ; first: 1: opentsdb "NaN", ours null; 2: opentsdb null, ours "NaN"/);
});

test('value mismatches: counted, the first few listed', () => {
  const dps = (f: (i: number) => number): Record<string, number> => Object.fromEntries(Array.from({ length: 20 }, (_, i) => [String(1000 + i), f(i)]));
  const d = compareAnswers(
    'q',
    ok(
      series(
        {},
        dps((i) => i),
      ),
    ),
    ok(
      series(
        {},
        dps((i) => i + 1),
      ),
    ),
  );
  assert.equal(d.length, 1);
  assert.match(d[0]?.detail ?? '', /^20 of 20 values differ/);
  assert.equal((d[0]?.detail.match(/opentsdb/g) ?? []).length, MAX_POINT_DIFFS);
});

test('different timestamps: one timestamps difference with the first differing positions', () => {
  const d = compareAnswers('q', ok(series({}, { 1: 1, 2: 2, 3: 3 })), ok(series({}, { 1: 1, 3: 3 })));
  assert.equal(d.length, 1);
  assert.equal(d[0]?.kind, 'timestamps');
  assert.match(d[0].detail, /3 points vs 2; first differing: #1: opentsdb 2=2, ours 3=3; #2: opentsdb 3=3, ours —/);
});

test('arrays form compares like the object form, but the form itself must match', () => {
  assert.deepEqual(
    compareAnswers(
      'q',
      ok(
        series({}, [
          [1, 1],
          [2, null],
        ]),
      ),
      ok(
        series({}, [
          [1, 1],
          [2, null],
        ]),
      ),
    ),
    [],
  );
  const d = compareAnswers('q', ok(series({}, [[1, 1]])), ok(series({}, { 1: 1 })));
  assert.deepEqual(
    d.map((x) => x.kind),
    ['dps-form'],
  );
});

test('errors: status and error.code only, never the message', () => {
  const e = (code: number, message: string): { status: number; body: unknown } => ({ status: code, body: { error: { code, message, trace: 'java…' } } });
  assert.deepEqual(compareAnswers('q', e(400, 'No such name for metrics'), e(400, 'another text')), []);
  assert.deepEqual(
    compareAnswers('q', e(400, 'x'), e(500, 'x')).map((x) => x.kind),
    ['status'],
  );
  assert.deepEqual(
    compareAnswers('q', e(400, 'x'), { status: 400, body: { error: { code: 404 } } }).map((x) => x.kind),
    ['error-code'],
  );
  assert.deepEqual(
    compareAnswers('q', e(400, 'x'), ok()).map((x) => x.kind),
    ['status'],
  );
});

test('ours not an array of series: body-shape', () => {
  assert.deepEqual(
    compareAnswers('q', ok(), { status: 200, body: { items: [] } }).map((x) => x.kind),
    ['body-shape'],
  );
});

test('showQuery echo: the fields that matter, filters as a set; index keys the series', () => {
  const q = {
    aggregator: 'sum',
    metric: 'temp',
    index: 0,
    downsample: '1h-avg',
    rate: false,
    explicitTags: false,
    rateOptions: null,
    filters: [
      { type: 'literal_or', tagk: 'site', filter: 'north', group_by: false },
      { type: 'wildcard', tagk: 'id', filter: '*', group_by: true },
    ],
    tags: { id: 'wildcard(*)' },
    tsuids: null,
    filterTagKs: ['AAAB'],
  };
  const reordered = { ...q, filters: [...q.filters].reverse(), useMultiGets: true, filterTagKs: [] };
  assert.equal(echoDigest(q), echoDigest(reordered));
  assert.deepEqual(compareAnswers('q', ok(series({}, { 1: 1 }, { query: q })), ok(series({}, { 1: 1 }, { query: reordered }))), []);
  const d = compareAnswers('q', ok(series({}, { 1: 1 }, { query: q })), ok(series({}, { 1: 1 }, { query: { ...q, downsample: '1h-sum' } })));
  assert.deepEqual(
    d.map((x) => x.kind),
    ['query-echo'],
  );
  const camel = { ...q, filters: q.filters.map(({ group_by: g, ...rest }) => ({ ...rest, groupBy: g })) };
  assert.notEqual(echoDigest(camel), echoDigest(q), 'OpenTSDB spells it group_by');
  const other = compareAnswers('q', ok(series({}, { 1: 1 }, { query: q })), ok(series({}, { 1: 1 }, { query: { ...q, index: 1 } })));
  assert.deepEqual(
    other.map((x) => x.kind),
    ['series-missing', 'series-extra'],
  );
});

test('divergences: validated; pattern and kind decide what is documented', () => {
  const divs = parseDivergences({
    divergences: [
      { query: 'rate-*', kind: 'values', what: 'w', why: 'y' },
      { query: 'error-unknown-metric', kind: '*', what: 'w', why: 'y' },
    ],
  });
  const diffs = [
    { query: 'rate-counter', kind: 'values' as const, detail: '' },
    { query: 'rate-counter', kind: 'timestamps' as const, detail: '' },
    { query: 'error-unknown-metric', kind: 'status' as const, detail: '' },
    { query: 'xrate-counter', kind: 'values' as const, detail: '' },
  ];
  const c = classify(diffs, divs);
  assert.deepEqual(
    c.documented.map((x) => `${x.diff.query}/${x.diff.kind}`),
    ['rate-counter/values', 'error-unknown-metric/status'],
  );
  assert.deepEqual(
    c.failures.map((x) => `${x.query}/${x.kind}`),
    ['rate-counter/timestamps', 'xrate-counter/values'],
  );
  assert.throws(() => parseDivergences({ divergences: [{ query: 'q', kind: 'nope', what: 'w', why: 'y' }] }), /kind/);
  assert.throws(() => parseDivergences({ divergences: [{ query: 'q', kind: '*', what: '', why: 'y' }] }), /what and why/);
  assert.throws(() => parseDivergences([]), /expected/);
});
