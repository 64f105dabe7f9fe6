import { test } from 'node:test';
import assert from 'node:assert/strict';
import { javaSplit, parseDownsample } from '../../../src/series-language/downsample-spec.ts';
import { TsdbQueryError } from '../../../src/series-language/errors.ts';

function rejects(spec: string, message: RegExp, ctx = {}): void {
  assert.throws(
    () => parseDownsample(spec, 'queries[1].downsample', ctx),
    (err: unknown) => {
      assert.ok(err instanceof TsdbQueryError);
      assert.equal(err.field, 'queries[1].downsample');
      assert.match(err.message, message);
      return true;
    },
  );
}

test('TestDownsamplingSpecification: interval, function and fill', () => {
  assert.deepEqual(parseDownsample('1h-avg', 'f'), {
    spec: '1h-avg',
    all: false,
    count: 1,
    unit: 'h',
    intervalMs: 3600000,
    calendar: false,
    timezone: 'UTC',
    aggregator: 'avg',
    fill: 'none',
  });
  const d = parseDownsample('5m-sum-zero', 'f');
  assert.equal(d.intervalMs, 300000);
  assert.equal(d.fill, 'zero');
  assert.equal(parseDownsample('15m-avg-NaN', 'f').fill, 'nan');
  assert.equal(parseDownsample('1s-max-NULL', 'f').fill, 'null');
  assert.deepEqual(
    { ...parseDownsample('500ms-min', 'f') },
    {
      spec: '500ms-min',
      all: false,
      count: 500,
      unit: 'ms',
      intervalMs: 500,
      calendar: false,
      timezone: 'UTC',
      aggregator: 'min',
      fill: 'none',
    },
  );
  assert.equal(parseDownsample('1h-avg-', 'f').fill, 'none'); // Java split drops the trailing empty part
  assert.equal(parseDownsample('1n-sum', 'f').intervalMs, 30 * 86400000); // fixed 30-day month off the calendar
  assert.equal(parseDownsample('1y-sum', 'f').intervalMs, 365 * 86400000);
});

test('0all and calendar intervals', () => {
  const all = parseDownsample('0all-count', 'f');
  assert.equal(all.all, true);
  assert.equal(all.count, 0);
  assert.equal(all.unit, 'ms');
  assert.equal(all.intervalMs, 0);
  assert.equal(all.aggregator, 'count');
  const c = parseDownsample('1dc-max', 'f', { timezone: 'Asia/Shanghai' });
  assert.equal(c.calendar, true);
  assert.equal(c.count, 1);
  assert.equal(c.unit, 'd');
  assert.equal(c.timezone, 'Asia/Shanghai');
  const n = parseDownsample('1nc-sum', 'f');
  assert.equal(n.calendar, true);
  assert.equal(n.unit, 'n');
  const flagged = parseDownsample('2w-avg', 'f', { useCalendar: true });
  assert.equal(flagged.calendar, true);
  assert.equal(flagged.count, 2);
  assert.equal(flagged.unit, 'w');
  assert.equal(parseDownsample('0all-sum', 'f', { useCalendar: true }).calendar, false);
});

test('TestDownsamplingSpecification: errors with OpenTSDB wording', () => {
  rejects('1h', /^Invalid downsampling specifier '1h': must provide at least interval and function$/);
  rejects('1h-avg-zero-x', /must consist of interval, function, and optional fill policy$/);
  rejects('1h-foo', /^No such downsampling function: foo$/);
  rejects('1h-AVG', /^No such downsampling function: AVG$/); // case-sensitive, as Aggregators.get
  rejects('1h-none', /^cannot use the NONE aggregator for downsampling$/);
  rejects('1h-avg-bogus', /^Unrecognized fill policy: bogus$/);
  rejects('1h-avg-scalar', /scalar fill policy is not supported/);
  rejects('0h-avg', /^Zero or negative duration: 0h$/);
  rejects('1p-avg', /^Invalid duration \(suffix\): 1p$/);
  rejects('1xc-avg', /^Invalid duration \(suffix\): 1x$/);
  rejects('1xh-avg', /For input string/, { useCalendar: true });
});

test('javaSplit drops trailing empties like String.split', () => {
  assert.deepEqual(javaSplit('a-b--', '-'), ['a', 'b']);
  assert.deepEqual(javaSplit('-a', '-'), ['', 'a']);
  assert.deepEqual(javaSplit('--', '-'), []);
  assert.deepEqual(javaSplit('abc', '-'), ['abc']);
});
