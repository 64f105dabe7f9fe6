import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDateTime, parseDuration, parseJavaLong } from '../../../src/series-language/time.ts';
import { TsdbQueryError } from '../../../src/series-language/errors.ts';

const NOW = 1357300800000; // TestDateTime's mocked currentTimeMillis

function throwsAt(fn: () => unknown, field: string, message: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof TsdbQueryError);
    assert.equal(err.field, field);
    assert.equal(err.status, 400);
    assert.equal(err.code, 'BAD_QUERY');
    assert.equal(err.retriable, false);
    assert.match(err.message, message);
    return true;
  });
}

test('TestDateTime: now and relative times', () => {
  assert.equal(parseDateTime('now', undefined, NOW, 'start'), NOW);
  assert.equal(parseDateTime('NOW', undefined, NOW, 'start'), NOW);
  assert.equal(NOW - parseDateTime('60s-ago', undefined, NOW, 'start'), 60000);
  assert.equal(NOW - parseDateTime('1m-ago', undefined, NOW, 'start'), 60000);
  assert.equal(NOW - parseDateTime('2h-ago', undefined, NOW, 'start'), 7200000);
  assert.equal(NOW - parseDateTime('2d-ago', undefined, NOW, 'start'), 2 * 86400000);
  assert.equal(NOW - parseDateTime('3w-ago', undefined, NOW, 'start'), 3 * 7 * 86400000);
  assert.equal(NOW - parseDateTime('2n-ago', undefined, NOW, 'start'), 2 * 30 * 86400000);
  assert.equal(NOW - parseDateTime('2y-ago', undefined, NOW, 'start'), 2 * 365 * 86400000);
  assert.equal(NOW - parseDateTime('500ms-ago', undefined, NOW, 'start'), 500);
  assert.equal(NOW - parseDateTime('1H-AGO', undefined, NOW, 'start'), 3600000);
});

test('TestDateTime: unix seconds, ms and the dotted form', () => {
  assert.equal(parseDateTime('1355961600', undefined, NOW, 'start'), 1355961600000);
  assert.equal(parseDateTime('0', undefined, NOW, 'start'), 0);
  assert.equal(parseDateTime('13559616000', undefined, NOW, 'start'), 13559616000); // 11 digits: ms
  assert.equal(parseDateTime('1355961603418', undefined, NOW, 'start'), 1355961603418);
  assert.equal(parseDateTime('123123ms', undefined, NOW, 'start'), 123123);
  assert.equal(parseDateTime('1234567890123ms', undefined, NOW, 'start'), 1234567890123);
  assert.equal(parseDateTime('1355961603.418', undefined, NOW, 'start'), 1355961603418);
  assert.equal(parseDateTime('1355961603.41', undefined, NOW, 'start'), 135596160341);
  assert.equal(parseDateTime('1355961603.4', undefined, NOW, 'start'), 13559616034);
  assert.equal(parseDateTime('1355961600.000', undefined, NOW, 'start'), 1355961600000);
  assert.equal(parseDateTime('', undefined, NOW, 'start'), -1);
});

test('TestDateTime: bad numbers', () => {
  throwsAt(() => parseDateTime('-135596160', undefined, NOW, 'start'), 'start', /Negative timestamps are not supported/);
  throwsAt(() => parseDateTime('1234567890.2.4', undefined, NOW, 'end'), 'end', /limited to 3 digits/);
  throwsAt(() => parseDateTime('1234.56789.123', undefined, NOW, 'start'), 'start', /Millisecond timestamps/);
  throwsAt(() => parseDateTime('135596160.418', undefined, NOW, 'start'), 'start', /Millisecond timestamps/);
  throwsAt(() => parseDateTime('1355961603.4180', undefined, NOW, 'start'), 'start', /Millisecond timestamps/);
  throwsAt(() => parseDateTime('1355961603587168438418', undefined, NOW, 'start'), 'start', /^Invalid time: 1355961603587168438418\. Value too long/);
  throwsAt(() => parseDateTime('1s', 'GMT', NOW, 'start'), 'start', /^Invalid time: 1s\. Invalid character 's' in 1s$/);
});

test('TestDateTime: absolute dates in a zone', () => {
  assert.equal(parseDateTime('2012/12/20', 'GMT', NOW, 'start'), 1355961600000);
  assert.equal(parseDateTime('2012/12/20 12:42', 'GMT', NOW, 'start'), 1356007320000);
  assert.equal(parseDateTime('2012/12/20-12:42', 'GMT', NOW, 'start'), 1356007320000);
  assert.equal(parseDateTime('2012/12/20 12:42:42', 'GMT', NOW, 'start'), 1356007362000);
  assert.equal(parseDateTime('2012/12/20-12:42:42', undefined, NOW, 'start'), 1356007362000);
  // the zone's wall clock: Shanghai is UTC+8, Los Angeles is UTC-8 in December
  assert.equal(parseDateTime('2012/12/20', 'Asia/Shanghai', NOW, 'start'), 1355961600000 - 8 * 3600000);
  assert.equal(parseDateTime('2012/12/20 12:42', 'America/Los_Angeles', NOW, 'start'), 1356007320000 + 8 * 3600000);
  // summer time: Los Angeles is UTC-7 in July
  assert.equal(parseDateTime('2013/07/01', 'America/Los_Angeles', NOW, 'start'), Date.UTC(2013, 6, 1, 7));
  // SimpleDateFormat is lenient: month 13 rolls into the next year
  assert.equal(parseDateTime('2012/13/01', 'UTC', NOW, 'start'), Date.UTC(2013, 0, 1));
  throwsAt(() => parseDateTime('2012/12/', 'GMT', NOW, 'start'), 'start', /^Invalid absolute date: 2012\/12\/$/);
  throwsAt(() => parseDateTime('2012/12/20', 'Mars/Olympus', NOW, 'start'), 'start', /^Invalid timezone name: Mars\/Olympus$/);
  throwsAt(() => parseDateTime('2012/12/20-ab:cd', 'UTC', NOW, 'start'), 'start', /^Invalid date: /);
});

test('TestDateTime: parseDuration', () => {
  assert.equal(parseDuration('60ms', 'f'), 60);
  assert.equal(parseDuration('60s', 'f'), 60000);
  assert.equal(parseDuration('60S', 'f'), 60000);
  assert.equal(parseDuration('60m', 'f'), 3600000);
  assert.equal(parseDuration('24h', 'f'), 86400000);
  assert.equal(parseDuration('1d', 'f'), 86400000);
  assert.equal(parseDuration('1w', 'f'), 604800000);
  assert.equal(parseDuration('1n', 'f'), 30 * 86400000);
  assert.equal(parseDuration('2y', 'f'), 2 * 365 * 86400000);
  assert.equal(parseDuration('4294967296ms', 'f'), 2 ** 32);
  assert.equal(parseDuration('1xh', 'f'), 3600000); // only the last character decides, as OpenTSDB
  throwsAt(() => parseDuration('4611686018427387904y', 'f'), 'f', /Duration must be < Long.MAX_VALUE ms/);
  throwsAt(() => parseDuration('-60s', 'f'), 'f', /^Invalid duration \(number\): -60s$/);
  throwsAt(() => parseDuration('foo60s', 'f'), 'f', /^Invalid duration \(number\)/);
  throwsAt(() => parseDuration('60p', 'f'), 'f', /^Invalid duration \(suffix\): 60p$/);
  throwsAt(() => parseDuration('6393590450230209347573980s', 'f'), 'f', /^Invalid duration \(number\)/);
  throwsAt(() => parseDuration('0s', 'f'), 'f', /^Zero or negative duration: 0s$/);
  throwsAt(() => parseDuration('60', 'f'), 'f', /must have an integer and unit/);
  throwsAt(() => parseDuration('', 'f'), 'f', /Cannot parse null or empty duration/);
});

test('Tags.parseLong messages', () => {
  assert.equal(parseJavaLong('-9223372036854775808'), -9223372036854775808n);
  assert.equal(parseJavaLong('+42'), 42n);
  assert.throws(() => parseJavaLong('9223372036854775808'), /^InputError: Overflow in 9223372036854775808$/);
  assert.throws(() => parseJavaLong('-'), /Just a sign, no value: -/);
  assert.throws(() => parseJavaLong(''), /Empty string/);
});
