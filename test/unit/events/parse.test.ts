import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_EVENT_LIMITS,
  DEFAULT_FIELD_MAPPING,
  REJECT_REASONS,
  describeReject,
  parseEvent,
  resolveEventLimits,
  resolveFieldMapping,
  type EventLimits,
  type FieldMapping,
  type ParseResult,
  type RejectReason,
} from '../../../src/events/index.ts';

/** A copy of `record` without `key`. */
function without(record: Record<string, unknown>, key: string): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([k]) => k !== key));
}

const GOOD = { id: 'sensor-0042', ts: 1732262400000, metric: 'temp', value: 21.5, tags: { site: 'sh-01' } };

function parse(input: unknown, mapping: FieldMapping = DEFAULT_FIELD_MAPPING, limits: EventLimits = DEFAULT_EVENT_LIMITS): ParseResult {
  const raw = Buffer.isBuffer(input) ? input : Buffer.from(typeof input === 'string' ? input : JSON.stringify(input), 'utf8');
  return parseEvent(raw, mapping, limits);
}

function rejected(result: ParseResult, reason: RejectReason, field?: string): string {
  assert.ok(!result.ok, `expected a rejection, got ${JSON.stringify(result)}`);
  assert.equal(result.reason, reason, result.detail);
  assert.equal(result.field, field);
  assert.ok(result.detail.length > 0);
  return result.detail;
}

void test('accepts the DESIGN.md example event', () => {
  assert.deepEqual(parse(GOOD), { ok: true, event: GOOD });
});

void test('tags are optional; absent or null tags mean none; extra fields are ignored', () => {
  const noTags = { id: GOOD.id, ts: GOOD.ts, metric: GOOD.metric, value: GOOD.value };
  assert.deepEqual(parse(noTags), { ok: true, event: { ...noTags, tags: {} } });
  assert.deepEqual(parse({ ...noTags, tags: null }), { ok: true, event: { ...noTags, tags: {} } });
  assert.deepEqual(parse({ ...GOOD, extra: [1, 2], unit: 'C' }), { ok: true, event: GOOD });
});

void test('a tag named __proto__ is kept as an ordinary tag', () => {
  const result = parse('{"id":"a","ts":1,"metric":"m","value":1,"tags":{"__proto__":"x","k":"v"}}');
  assert.ok(result.ok);
  assert.deepEqual(Object.entries(result.event.tags), [
    ['__proto__', 'x'],
    ['k', 'v'],
  ]);
});

void test('invalid_json: bad UTF-8, bad JSON, non-object JSON, lone surrogates', () => {
  rejected(parse(Buffer.from([0x7b, 0xff, 0x7d])), 'invalid_json');
  assert.match(rejected(parse('{"id": "a",'), 'invalid_json'), /JSON/);
  assert.match(rejected(parse('[1,2]'), 'invalid_json'), /got an array/);
  assert.match(rejected(parse('null'), 'invalid_json'), /got null/);
  assert.match(rejected(parse('42'), 'invalid_json'), /got a number/);
  assert.match(rejected(parse('"text"'), 'invalid_json'), /got a string/);
  rejected(parse(''), 'invalid_json');
  rejected(parse('{"id":"\\ud800x","ts":1,"metric":"m","value":1}'), 'invalid_json', 'id');
  rejected(parse('{"id":"a","ts":1,"metric":"\\udfff","value":1}'), 'invalid_json', 'metric');
  rejected(parse('{"id":"a","ts":1,"metric":"m","value":1,"tags":{"k":"\\ud83d"}}'), 'invalid_json', 'tags.k');
});

void test('missing_field names each missing field', () => {
  for (const field of ['id', 'ts', 'metric', 'value'] as const) {
    assert.match(rejected(parse(without(GOOD, field)), 'missing_field', field), new RegExp(`${field} is missing`));
  }
});

void test('wrong_type: numeric strings, non-string ids, fractional ts, non-object tags', () => {
  rejected(parse({ ...GOOD, value: '21.5' }), 'wrong_type', 'value');
  rejected(parse({ ...GOOD, value: null }), 'wrong_type', 'value');
  rejected(parse({ ...GOOD, value: true }), 'wrong_type', 'value');
  rejected(parse({ ...GOOD, id: 42 }), 'wrong_type', 'id');
  rejected(parse({ ...GOOD, id: null }), 'wrong_type', 'id');
  rejected(parse({ ...GOOD, metric: ['temp'] }), 'wrong_type', 'metric');
  rejected(parse({ ...GOOD, ts: 1732262400000.5 }), 'wrong_type', 'ts');
  rejected(parse({ ...GOOD, ts: true }), 'wrong_type', 'ts');
  rejected(parse({ ...GOOD, ts: { ms: 1 } }), 'wrong_type', 'ts');
  rejected(parse({ ...GOOD, tags: ['site'] }), 'wrong_type', 'tags');
  rejected(parse({ ...GOOD, tags: 'site=sh-01' }), 'wrong_type', 'tags');
});

void test('id_empty, id_contains_nul and id_too_long', () => {
  assert.equal(rejected(parse({ ...GOOD, id: '' }), 'id_empty', 'id'), 'id is the empty string; it must be 1–128 UTF-8 bytes');
  assert.match(
    rejected(parse({ ...GOOD, payload: { deviceId: '' } }, resolveFieldMapping({ id: 'payload.deviceId' })), 'id_empty', 'payload.deviceId'),
    /empty/,
  );
  assert.ok(parse({ ...GOOD, id: ' ' }).ok, 'a blank id is not empty');
  rejected(parse({ ...GOOD, id: 'a\u0000b' }), 'id_contains_nul', 'id');
  assert.match(rejected(parse({ ...GOOD, id: 'x'.repeat(129) }), 'id_too_long', 'id'), /129 UTF-8 bytes, max 128/);
  assert.match(rejected(parse({ ...GOOD, id: '设'.repeat(43) }), 'id_too_long', 'id'), /129 UTF-8 bytes/);
  assert.ok(parse({ ...GOOD, id: 'x'.repeat(128) }).ok);
  assert.ok(parse({ ...GOOD, id: '设'.repeat(42) }).ok);
});

void test('value_not_finite: a literal overflowing to Infinity', () => {
  rejected(parse('{"id":"a","ts":1,"metric":"m","value":1e400}'), 'value_not_finite', 'value');
  rejected(parse('{"id":"a","ts":1,"metric":"m","value":-1e400}'), 'value_not_finite', 'value');
  const ok = parse('{"id":"a","ts":1,"metric":"m","value":-0.0}');
  assert.ok(ok.ok && Object.is(ok.event.value, -0));
});

void test('ts: ISO-8601 strings with a zone are accepted, others rejected', () => {
  const at = (ts: unknown) => parse({ ...GOOD, ts });
  assert.deepEqual(at('2024-11-22T08:00:00Z'), { ok: true, event: GOOD });
  assert.deepEqual(at('2024-11-22T16:00:00.000+08:00'), { ok: true, event: GOOD });
  assert.deepEqual(at('2024-11-22T03:00-05:00'), { ok: true, event: GOOD });
  const withMs = at('2023-11-14T22:13:20.123456Z');
  assert.ok(withMs.ok && withMs.event.ts === 1700000000123);
  assert.match(rejected(at('2024-11-22T08:00:00'), 'ts_invalid', 'ts'), /no timezone/);
  assert.match(rejected(at('2024-11-22'), 'ts_invalid', 'ts'), /no timezone/);
  rejected(at('1732262400000'), 'ts_invalid', 'ts');
  rejected(at('Fri, 22 Nov 2024 08:00:00 GMT'), 'ts_invalid', 'ts');
  assert.match(rejected(at('2023-02-29T00:00:00Z'), 'ts_invalid', 'ts'), /no such calendar date/);
});

void test('ts_out_of_range: before minTs, after maxTs (default 2200), non-finite, future skew', () => {
  assert.match(rejected(parse({ ...GOOD, ts: -1 }), 'ts_out_of_range', 'ts'), /^ts -1 \(1969-12-31T23:59:59\.999Z\) is before the earliest accepted ts 0 /);
  rejected(parse({ ...GOOD, ts: '1969-12-31T23:59:59.999Z' }), 'ts_out_of_range', 'ts');
  rejected(parse({ ...GOOD, ts: '0070-01-01T00:00:00Z' }), 'ts_out_of_range', 'ts');
  const late = rejected(parse({ ...GOOD, ts: '2200-01-01T00:00:00.001Z' }), 'ts_out_of_range', 'ts');
  const max = Date.UTC(2200, 0, 1);
  assert.equal(
    late,
    `ts ${max + 1} (2200-01-01T00:00:00.001Z) is after events.maxTs ${max} (2200-01-01T00:00:00.000Z); raise events.maxTs (epoch ms or ISO-8601) to accept it`,
  );
  assert.ok(parse({ ...GOOD, ts: '2199-12-31T23:59:59.999Z' }).ok);
  assert.ok(parse({ ...GOOD, ts: 0 }).ok);
  rejected(parse('{"id":"a","ts":1e400,"metric":"m","value":1}'), 'ts_out_of_range', 'ts');
  const limits = resolveEventLimits({ minTs: 1_000, nowMs: 2_000_000, maxFutureSkewMs: 60_000 });
  rejected(parse({ ...GOOD, ts: 999 }, DEFAULT_FIELD_MAPPING, limits), 'ts_out_of_range', 'ts');
  assert.ok(parse({ ...GOOD, ts: 2_060_000 }, DEFAULT_FIELD_MAPPING, limits).ok);
  assert.match(
    rejected(parse({ ...GOOD, ts: 2_060_001 }, DEFAULT_FIELD_MAPPING, limits), 'ts_out_of_range', 'ts'),
    /more than 60000 ms \(events\.maxFutureSkewMs\) ahead of now 2000000/,
  );
});

void test('ts_out_of_range follows a raised or lowered maxTs', () => {
  const year2300 = Date.UTC(2300, 0, 1);
  const raised = resolveEventLimits({ maxTs: year2300 });
  const in2250 = Date.UTC(2250, 5, 1);
  assert.deepEqual(parse({ ...GOOD, ts: in2250 }, DEFAULT_FIELD_MAPPING, raised), { ok: true, event: { ...GOOD, ts: in2250 } });
  assert.ok(parse({ ...GOOD, ts: '2299-12-31T23:59:59.999Z' }, DEFAULT_FIELD_MAPPING, raised).ok);
  assert.match(
    rejected(parse({ ...GOOD, ts: year2300 + 1 }, DEFAULT_FIELD_MAPPING, raised), 'ts_out_of_range', 'ts'),
    new RegExp(`after events\\.maxTs ${year2300} \\(2300-01-01T00:00:00\\.000Z\\)`),
  );
  rejected(parse({ ...GOOD, ts: in2250 }), 'ts_out_of_range', 'ts');
  const lowered = resolveEventLimits({ maxTs: GOOD.ts });
  assert.ok(parse(GOOD, DEFAULT_FIELD_MAPPING, lowered).ok, 'maxTs itself is accepted');
  assert.match(rejected(parse({ ...GOOD, ts: GOOD.ts + 1 }, DEFAULT_FIELD_MAPPING, lowered), 'ts_out_of_range', 'ts'), /events\.maxTs/);
  // a skew bound above maxTs leaves maxTs in charge, and the detail names maxTs
  const both = resolveEventLimits({ maxTs: GOOD.ts, nowMs: GOOD.ts, maxFutureSkewMs: 60_000 });
  assert.match(rejected(parse({ ...GOOD, ts: GOOD.ts + 1 }, DEFAULT_FIELD_MAPPING, both), 'ts_out_of_range', 'ts'), /events\.maxTs/);
});

void test('metric_invalid: empty, too long, NUL', () => {
  rejected(parse({ ...GOOD, metric: '' }), 'metric_invalid', 'metric');
  assert.match(rejected(parse({ ...GOOD, metric: 'm'.repeat(65) }), 'metric_invalid', 'metric'), /65 UTF-8 bytes, max 64/);
  rejected(parse({ ...GOOD, metric: 'te\u0000mp' }), 'metric_invalid', 'metric');
  assert.ok(parse({ ...GOOD, metric: 'm'.repeat(64) }).ok);
  const small = resolveEventLimits({ maxMetricBytes: 4 });
  rejected(parse({ ...GOOD, metric: 'tempC' }, DEFAULT_FIELD_MAPPING, small), 'metric_invalid', 'metric');
});

void test('tags_invalid: non-string value, NUL in key or value, too many tags', () => {
  rejected(parse({ ...GOOD, tags: { site: 1 } }), 'tags_invalid', 'tags.site');
  rejected(parse({ ...GOOD, tags: { site: null } }), 'tags_invalid', 'tags.site');
  rejected(parse({ ...GOOD, tags: { site: { a: 'b' } } }), 'tags_invalid', 'tags.site');
  rejected(parse({ ...GOOD, tags: { 's\u0000': 'x' } }), 'tags_invalid', 'tags.s\u0000');
  rejected(parse({ ...GOOD, tags: { site: 'a\u0000' } }), 'tags_invalid', 'tags.site');
  const many = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, 'v']));
  assert.match(rejected(parse({ ...GOOD, tags: many }), 'tags_invalid', 'tags'), /33 tags, max 32/);
  assert.ok(parse({ ...GOOD, tags: Object.fromEntries(Object.entries(many).slice(1)) }).ok);
});

void test('cell_too_large: raw record over limits.maxCellBytes', () => {
  const limits = resolveEventLimits({ maxCellBytes: 100 });
  const big = { ...GOOD, tags: { note: 'x'.repeat(100) } };
  assert.match(rejected(parse(big, DEFAULT_FIELD_MAPPING, limits), 'cell_too_large'), /bytes, max 100/);
  assert.ok(parse(GOOD, DEFAULT_FIELD_MAPPING, limits).ok);
  const huge = Buffer.alloc(DEFAULT_EVENT_LIMITS.maxCellBytes + 1, 0x20);
  rejected(parse(huge), 'cell_too_large');
});

void test('renamed and dotted fields via the mapping', () => {
  const mapping = resolveFieldMapping({
    id: 'payload.deviceId',
    ts: 'meta.time',
    metric: 'name',
    value: 'payload.reading.v',
    tags: 'payload.labels',
  });
  const input = {
    meta: { time: '2024-11-22T08:00:00Z' },
    name: 'temp',
    payload: { deviceId: 'sensor-0042', reading: { v: 21.5 }, labels: { site: 'sh-01' } },
    id: 'ignored',
  };
  assert.deepEqual(parse(input, mapping), { ok: true, event: GOOD });
  assert.match(rejected(parse({ ...input, payload: { reading: { v: 1 } } }, mapping), 'missing_field', 'payload.deviceId'), /payload.deviceId is missing/);
  assert.match(rejected(parse({ ...input, payload: 'flat' }, mapping), 'missing_field', 'payload.deviceId'), /payload is not an object/);
  rejected(parse({ ...input, payload: { ...input.payload, deviceId: 7 } }, mapping), 'wrong_type', 'payload.deviceId');
  rejected(parse({ ...input, payload: { ...input.payload, labels: { site: 1 } } }, mapping), 'tags_invalid', 'payload.labels.site');
  rejected(parse({ ...input, payload: { ...input.payload, reading: { v: '1' } } }, mapping), 'wrong_type', 'payload.reading.v');
  rejected(parse(without(input, 'name'), mapping), 'missing_field', 'name');
});

void test('every reject reason is exercised and has a description', () => {
  assert.deepEqual([...REJECT_REASONS].sort(), [
    'cell_too_large',
    'hbase_rejected',
    'id_contains_nul',
    'id_empty',
    'id_too_long',
    'invalid_json',
    'key_invalid',
    'metric_invalid',
    'missing_field',
    'tags_invalid',
    'ts_invalid',
    'ts_out_of_range',
    'value_not_finite',
    'wrong_type',
  ]);
  assert.equal(new Set(REJECT_REASONS).size, REJECT_REASONS.length, 'no duplicates');
  for (const reason of REJECT_REASONS) assert.match(reason, /^[a-z]+(_[a-z]+)*$/, 'usable as a header value and metric label');
});

void test('describeReject yields one bounded line', () => {
  const result = parse({ ...GOOD, value: '21.5' });
  assert.ok(!result.ok);
  assert.equal(describeReject(result), 'wrong_type [value]: value must be a JSON number, got "21.5"');
  const top = parse('[]');
  assert.ok(!top.ok);
  assert.equal(describeReject(top), 'invalid_json: record must be a JSON object, got an array');
  const long = describeReject({ ok: false, reason: 'invalid_json', detail: `a\nb${'x'.repeat(1000)}` });
  assert.ok(long.length <= 512 && !long.includes('\n'));
  const preview = parse({ ...GOOD, id: 12345, blob: 'y'.repeat(10_000) });
  assert.ok(!preview.ok && preview.detail.length < 100);
  const bigValue = parse({ ...GOOD, value: 'z'.repeat(10_000) });
  assert.ok(!bigValue.ok && bigValue.detail.length < 120);
});
