import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_EVENT_LIMITS,
  DEFAULT_FIELD_MAPPING,
  DEFAULT_MAX_TS,
  EventError,
  HARD_MAX_CELL_BYTES,
  effectiveMaxTs,
  readField,
  resolveEventLimits,
  resolveFieldMapping,
} from '../../../src/events/index.ts';

const limitsError = (field: string) => (e: unknown) =>
  e instanceof EventError && e.code === 'INVALID_LIMITS' && e.field === `limits.${field}` && !e.retriable && e.message.includes(`limits.${field}`);

void test('default limits', () => {
  assert.deepEqual(resolveEventLimits(), DEFAULT_EVENT_LIMITS);
  assert.deepEqual(DEFAULT_EVENT_LIMITS, { minTs: 0, maxTs: DEFAULT_MAX_TS, maxMetricBytes: 64, maxTags: 32, maxCellBytes: 1024 * 1024 });
  assert.equal(new Date(DEFAULT_MAX_TS).toISOString(), '2200-01-01T00:00:00.000Z');
  assert.equal(effectiveMaxTs(DEFAULT_EVENT_LIMITS), DEFAULT_MAX_TS);
});

void test('overrides are validated and name the field', () => {
  assert.equal(resolveEventLimits({ maxCellBytes: HARD_MAX_CELL_BYTES }).maxCellBytes, 10 * 1024 * 1024);
  assert.equal(resolveEventLimits({ maxTags: undefined }).maxTags, 32);
  assert.throws(() => resolveEventLimits({ maxCellBytes: HARD_MAX_CELL_BYTES + 1 }), limitsError('maxCellBytes'));
  assert.throws(() => resolveEventLimits({ maxCellBytes: 0 }), limitsError('maxCellBytes'));
  assert.throws(() => resolveEventLimits({ maxMetricBytes: 1.5 }), limitsError('maxMetricBytes'));
  assert.throws(() => resolveEventLimits({ maxTags: -1 }), limitsError('maxTags'));
  assert.throws(() => resolveEventLimits({ minTs: -1 }), limitsError('minTs'));
  assert.throws(() => resolveEventLimits({ maxTs: Number.MAX_SAFE_INTEGER + 2 }), limitsError('maxTs'));
  assert.throws(() => resolveEventLimits({ minTs: 10, maxTs: 5 }), limitsError('minTs'));
  assert.throws(() => resolveEventLimits({ maxFutureSkewMs: 1000 }), limitsError('nowMs'));
  assert.throws(() => resolveEventLimits({ nowMs: 1000 }), limitsError('maxFutureSkewMs'));
  assert.throws(() => resolveEventLimits({ maxTs: '5' as unknown as number }), limitsError('maxTs'));
  assert.throws(() => resolveEventLimits({ maxCellByte: 5 } as never), limitsError('maxCellByte'));
});

void test('future skew tightens the max ts only below maxTs', () => {
  assert.equal(effectiveMaxTs(resolveEventLimits({ nowMs: 1_000, maxFutureSkewMs: 500 })), 1_500);
  assert.equal(effectiveMaxTs(resolveEventLimits({ maxTs: 1_200, nowMs: 1_000, maxFutureSkewMs: 500 })), 1_200);
});

void test('field mapping defaults, overrides, validation', () => {
  assert.deepEqual(resolveFieldMapping(), DEFAULT_FIELD_MAPPING);
  assert.deepEqual(resolveFieldMapping({ id: 'deviceId' }), { ...DEFAULT_FIELD_MAPPING, id: 'deviceId' });
  const mappingError = (field: string) => (e: unknown) =>
    e instanceof EventError && e.code === 'INVALID_MAPPING' && e.field === `mapping.${field}` && e.message.includes(`mapping.${field}`);
  assert.throws(() => resolveFieldMapping({ id: '' }), mappingError('id'));
  assert.throws(() => resolveFieldMapping({ ts: 'a..b' }), mappingError('ts'));
  assert.throws(() => resolveFieldMapping({ value: '.v' }), mappingError('value'));
  assert.throws(() => resolveFieldMapping({ device: 'x' } as never), mappingError('device'));
});

void test('readField follows own properties only', () => {
  const record = JSON.parse('{"a":{"b":{"c":1}},"x":[{"y":1}],"n":null}') as Record<string, unknown>;
  assert.deepEqual(readField(record, 'a.b.c'), { found: true, value: 1 });
  assert.deepEqual(readField(record, 'n'), { found: true, value: null });
  assert.equal(readField(record, 'a.b.d').found, false);
  assert.equal(readField(record, 'x.0.y').found, false);
  assert.equal(readField(record, 'n.y').found, false);
  assert.equal(readField(record, 'toString').found, false);
  assert.equal(readField(record, 'a.constructor').found, false);
});
