// tsingest produce's line planning with the service's real parser: one message per non-blank line,
// keyed by the event id; a line the service would dead-letter is named by line number and field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eventLimitsFor, parseEvent, resolveFieldMapping } from '../../../src/events/index.ts';
import { planLines } from '../../../src/cli/produce-lines.ts';
import { loadConfig } from '../../../src/runtime/config.ts';

const cfg = loadConfig({ env: {} });
const mapping = resolveFieldMapping(cfg.events.mapping);
const limits = eventLimitsFor(cfg.events);
const parse = (raw: Uint8Array): ReturnType<typeof parseEvent> => parseEvent(raw, mapping, limits());

const good = (id: string, ts: number): string => JSON.stringify({ id, ts, metric: 'temp', value: 21.5, tags: { site: 'a' } });

void test('one message per non-blank line, keyed by id, CRLF and blank lines tolerated', () => {
  const text = `${good('pump-1', 1700000000000)}\r\n\n   \n${good('pump-2', 1700000000001)}\n`;
  const plan = planLines(text, parse);
  assert.deepEqual(plan.rejects, []);
  assert.deepEqual(
    plan.messages.map((m) => m.key),
    ['pump-1', 'pump-2'],
  );
  assert.equal(plan.messages[0]?.value, good('pump-1', 1700000000000), 'the line is sent as written, without its CR');
});

void test('rejected lines are named by line number and field; with allowInvalid they are sent unkeyed', () => {
  const text = [good('a', 1700000000000), '{"id":"b","metric":"temp","value":1}', 'not json', good('c', 1700000000002)].join('\n');
  const plan = planLines(text, parse);
  assert.deepEqual(
    plan.messages.map((m) => m.key),
    ['a', 'c'],
  );
  assert.deepEqual(
    plan.rejects.map((r) => r.line),
    [2, 3],
  );
  assert.match(plan.rejects[0]?.why ?? '', /\[ts\]/, 'the missing field is named');
  assert.match(plan.rejects[1]?.why ?? '', /json/i);
  const all = planLines(text, parse, true);
  assert.deepEqual(
    all.messages.map((m) => m.key),
    ['a', null, null, 'c'],
  );
  assert.equal(all.rejects.length, 2);
});
