import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_EVENT_LIMITS, DEFAULT_FIELD_MAPPING, REJECT_REASONS, parseEvent, resolveFieldMapping } from '../../../src/events/index.ts';
import { encodeDataKey } from '../../../src/keys/index.ts';
import { prng } from '../../../src/demo/generate.ts';

const SAMPLE = Buffer.from('{"id":"sensor-0042","ts":"2024-11-22T08:00:00Z","metric":"temp","value":21.5,"tags":{"site":"sh-01"}}');

void test('parseEvent never throws and every accepted event encodes to a data key', () => {
  const random = prng(42);
  const dotted = resolveFieldMapping({ id: 'a.b', tags: 'tags.x' });
  for (let i = 0; i < 5000; i++) {
    const bytes = Buffer.from(SAMPLE);
    const edits = 1 + Math.floor(random() * 4);
    for (let e = 0; e < edits; e++) bytes[Math.floor(random() * bytes.length)] = Math.floor(random() * 256);
    for (const mapping of [DEFAULT_FIELD_MAPPING, dotted]) {
      const result = parseEvent(bytes, mapping, DEFAULT_EVENT_LIMITS);
      if (result.ok) {
        assert.ok(encodeDataKey(result.event, 16).length > 10);
      } else {
        assert.ok(REJECT_REASONS.includes(result.reason));
      }
    }
  }
});

void test('deeply nested JSON within the size limit is rejected, not thrown', () => {
  const deep = Buffer.from(`${'['.repeat(500_000)}${']'.repeat(500_000)}`);
  const result = parseEvent(deep, DEFAULT_FIELD_MAPPING, DEFAULT_EVENT_LIMITS);
  assert.equal(result.ok, false);
  const deepObject = Buffer.from(`{"id":"a","ts":1,"metric":"m","value":1,"x":${'{"y":'.repeat(100_000)}1${'}'.repeat(100_000)}}`);
  assert.equal(parseEvent(deepObject, DEFAULT_FIELD_MAPPING, DEFAULT_EVENT_LIMITS).ok, true);
});
