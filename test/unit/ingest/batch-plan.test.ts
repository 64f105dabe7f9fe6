// planBatch dead-letters an event as key_invalid only when the key layout itself refuses it (its
// KeyError); any other exception from the layout is a bug and propagates, so the unit fails and is
// replayed instead of dead-lettering good data (issue 39). planSliced plans the same, in steps, giving
// the event loop back when its slice is spent; the unit planner's slices are shared by every unit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PLAN_STEP, planBatch, planSliced } from '../../../src/ingest/batch-plan.ts';
import { unitPlanner } from '../../../src/ingest/unit-planner.ts';
import { Slices } from '../../../src/toolkit/slices.ts';
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

const mixed = (n: number): ReturnType<typeof record>[] =>
  Array.from({ length: n }, (_, i) => (i % 97 === 5 ? record(i, '{"id":') : i % 89 === 7 ? record(i, null) : record(i, event(i))));

void test('planSliced: the plan of planBatch, the same events and rejects in the same order, whatever the pauses', async () => {
  const records = mixed(5 * PLAN_STEP + 3);
  let pauses = 0;
  const sliced = await planSliced(records, SETTINGS, () => {
    pauses++;
    return Promise.resolve();
  });
  assert.deepEqual(sliced, planBatch(records, SETTINGS));
  assert.equal(pauses, 5, 'asked after each step of PLAN_STEP records but the last');
  assert.ok(sliced.rejects.length > 0 && sliced.events.length > 0);
});

void test('the unit planner gives the event loop back between steps once a slice is spent, across the units it plans', async () => {
  let clock = 0;
  let turns = 0;
  // each reading of the clock: 10 ms later; a slice of 20 ms is spent every other step
  const slices = new Slices({
    sliceMs: 20,
    now: () => (clock += 10),
    yieldTurn: async () => {
      turns++;
      await new Promise((r) => setImmediate(r));
    },
  });
  const plan = unitPlanner(() => SETTINGS, undefined, undefined, slices);
  const records = mixed(8 * PLAN_STEP);
  let ranBetween = false;
  setImmediate(() => {
    ranBetween = true;
  });
  const [a, b] = await Promise.all([plan(records.slice(0, 4 * PLAN_STEP)), plan(records.slice(4 * PLAN_STEP))]);
  assert.ok(ranBetween, 'a callback queued before the plans ran while they were under way');
  assert.ok(turns >= 3, `turns given back: ${turns}`);
  assert.deepEqual([...a.events, ...b.events], planBatch(records, SETTINGS).events);
});
