// planBatch dead-letters an event as key_invalid only when the key layout itself refuses it (its
// KeyError); any other exception from the layout is a bug and propagates, so the unit fails and is
// replayed instead of dead-lettering good data (issue 39).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planBatch } from '../../../src/ingest/batch-plan.ts';
import { KeyError, Keyspace } from '../../../src/keys/index.ts';
import { SETTINGS, event, record } from './fixtures.ts';

/** The test keyspace, but building a data key throws what `fail` gives. */
function failingKeyspace(fail: () => Error): Keyspace {
  return new (class extends Keyspace {
    override dataKey(): Buffer {
      throw fail();
    }
  })(SETTINGS.keyspace.layout);
}

void test("the key layout's own KeyError dead-letters the event as key_invalid; the rest of the batch is planned", () => {
  const keyspace = failingKeyspace(() => new KeyError('INVALID_ID', 'id must not contain a NUL (0x00) character'));
  const plan = planBatch([record(0, event(0)), record(1, event(1))], { ...SETTINGS, keyspace });
  assert.equal(plan.events.length, 0);
  assert.deepEqual(
    plan.rejects.map((r) => [r.record.offset, r.reason, r.detail]),
    [
      ['0', 'key_invalid', 'key_invalid: id must not contain a NUL (0x00) character'],
      ['1', 'key_invalid', 'key_invalid: id must not contain a NUL (0x00) character'],
    ],
  );
});

void test('any other exception from the key layout (a TypeError: a bug) fails the plan instead of dead-lettering', () => {
  const bug = new TypeError("Cannot read properties of undefined (reading 'length')");
  const keyspace = failingKeyspace(() => bug);
  assert.throws(
    () => planBatch([record(0, event(0))], { ...SETTINGS, keyspace }),
    (err) => err === bug,
  );
});

void test('a plain event plans with no rejects', () => {
  const plan = planBatch([record(0, event(0))], SETTINGS);
  assert.equal(plan.rejects.length, 0);
  assert.equal(plan.events.length, 1);
});
