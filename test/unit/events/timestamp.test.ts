import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseIsoTimestamp, parseTimeSetting } from '../../../src/events/index.ts';
import { daysFromCivil } from '../../../src/events/timestamp.ts';

const ms = (text: string): number => {
  const result = parseIsoTimestamp(text);
  assert.ok(result.ok, `${text}: ${result.ok ? '' : result.detail}`);
  return result.ms;
};
const bad = (text: string): string => {
  const result = parseIsoTimestamp(text);
  assert.ok(!result.ok, `${text} should be rejected`);
  return result.detail;
};

void test('accepts RFC 3339 / ISO-8601 extended forms with a zone', () => {
  assert.equal(ms('1970-01-01T00:00:00Z'), 0);
  assert.equal(ms('2024-11-22T08:00:00Z'), 1732262400000);
  assert.equal(ms('2024-11-22t08:00:00z'), 1732262400000);
  assert.equal(ms('2024-11-22 08:00:00Z'), 1732262400000);
  assert.equal(ms('2024-11-22T08:00Z'), 1732262400000);
  assert.equal(ms('2024-11-22T16:00:00+08:00'), 1732262400000);
  assert.equal(ms('2024-11-22T16:00:00+0800'), 1732262400000);
  assert.equal(ms('2024-11-22T16:00:00+08'), 1732262400000);
  assert.equal(ms('2024-11-22T02:30:00-05:30'), 1732262400000);
  assert.equal(ms('2024-11-22T08:00:00-00:00'), 1732262400000);
  assert.equal(ms('2023-11-14T22:13:20.123Z'), 1700000000123);
  assert.equal(ms('2023-11-14T22:13:20,1Z'), 1700000000100);
  assert.equal(ms('2023-11-14T22:13:20.123999999Z'), 1700000000123);
  assert.equal(ms('2024-02-29T00:00:00Z'), Date.UTC(2024, 1, 29));
  assert.equal(ms('2000-02-29T12:00:00Z'), Date.UTC(2000, 1, 29, 12));
  assert.equal(ms('2199-12-31T23:59:59.999Z'), Date.UTC(2199, 11, 31, 23, 59, 59, 999));
});

void test('agrees with Date.parse on a spread of instants', () => {
  for (let t = 0; t < 7_258_118_400_000; t += 86_399_123_457) {
    const iso = new Date(t).toISOString();
    assert.equal(ms(iso), t, iso);
    assert.equal(ms(iso.replace('Z', '+01:00')), t - 3_600_000, iso);
  }
});

void test('years before 100 are not shifted into the 1900s', () => {
  assert.equal(ms('0070-01-01T00:00:00Z'), -59_958_144_000_000);
  assert.equal(ms('0070-01-01T00:00:00Z'), Date.parse('0070-01-01T00:00:00Z'));
  assert.equal(ms('0000-03-01T00:00:00Z'), Date.parse('0000-03-01T00:00:00Z'));
  assert.equal(daysFromCivil(1970, 1, 1), 0);
  assert.equal(daysFromCivil(1969, 12, 31), -1);
});

void test('rejects local times, date-only, other formats and impossible values', () => {
  assert.match(bad('2024-11-22T08:00:00'), /no timezone/);
  assert.match(bad('2024-11-22T08:00:00.123'), /no timezone/);
  assert.match(bad('2024-11-22'), /no timezone/);
  assert.match(bad('1732262400000'), /not an ISO-8601/);
  assert.match(bad('2024-11-22T08:00:00 UTC'), /not an ISO-8601/);
  assert.match(bad('2024-11-22T08:00:00.Z'), /not an ISO-8601/);
  assert.match(bad('20241122T080000Z'), /not an ISO-8601/);
  assert.match(bad(' 2024-11-22T08:00:00Z'), /not an ISO-8601/);
  assert.match(bad('2024-11-22T08:00:00.1234567891Z'), /not an ISO-8601/);
  assert.match(bad('2023-02-29T00:00:00Z'), /no such calendar date/);
  assert.match(bad('1900-02-29T00:00:00Z'), /no such calendar date/);
  assert.match(bad('2024-13-01T00:00:00Z'), /no such calendar date/);
  assert.match(bad('2024-04-31T00:00:00Z'), /no such calendar date/);
  assert.match(bad('2024-01-00T00:00:00Z'), /no such calendar date/);
  assert.match(bad('2024-01-01T24:00:00Z'), /time of day/);
  assert.match(bad('2024-01-01T23:60:00Z'), /time of day/);
  assert.match(bad('2016-12-31T23:59:60Z'), /time of day/);
  assert.match(bad('2024-01-01T00:00:00+24:00'), /offset/);
  assert.match(bad('2024-01-01T00:00:00+01:60'), /offset/);
});

void test('parseTimeSetting: epoch ms (number or digits) or ISO-8601 with a zone, in [0, 2^53 − 1]', () => {
  const ms = (raw: unknown): number => {
    const t = parseTimeSetting(raw);
    assert.ok(t.ok, `${String(raw)}: ${t.ok ? '' : t.detail}`);
    return t.ms;
  };
  const detail = (raw: unknown): string => {
    const t = parseTimeSetting(raw);
    assert.ok(!t.ok, `${String(raw)} is rejected`);
    return t.detail;
  };
  assert.equal(ms(Date.UTC(2300, 0, 1)), Date.UTC(2300, 0, 1));
  assert.equal(ms('7258118400000'), Date.UTC(2200, 0, 1));
  assert.equal(ms(' 2300-01-01T00:00:00Z '), Date.UTC(2300, 0, 1));
  assert.equal(ms('2300-01-01T08:00:00+08:00'), Date.UTC(2300, 0, 1));
  assert.equal(ms(0), 0);
  assert.equal(ms(Number.MAX_SAFE_INTEGER), Number.MAX_SAFE_INTEGER);
  assert.match(detail('2300-01-01'), /no timezone/);
  assert.match(detail(-1), /before 1970-01-01/);
  assert.match(detail('1969-12-31T23:59:59Z'), /before 1970-01-01/);
  assert.match(detail(1.5), /integer/);
  assert.match(detail(2 ** 53), /integer in \[0, 2\^53 − 1\]/);
  assert.match(detail('99999999999999999999'), /integer in \[0, 2\^53 − 1\]/);
  assert.match(detail(true), /epoch milliseconds or an ISO-8601 string/);
  assert.match(detail('soon'), /expected epoch milliseconds or ISO-8601/);
});
