// Every kind of bad record goes to the DLQ topic with its original key and bytes and a
// `tsingest-reason` header naming the reject reason, while the valid events around it are written:
// one bad record does not stop the partition.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DLQ_HEADERS } from '../../../src/ingest/dlq.ts';
import { REJECT_REASONS } from '../../../src/events/reject.ts';
import { uniqueName } from '../../support/env.ts';
import {
  countDataCells,
  countIndexed,
  countRows,
  createHarness,
  eventsProcessed,
  makeEvents,
  produceRaw,
  readDlq,
  startInProcess,
  waitForCommittedAtEnd,
  waitForEvents,
  type RawMessage,
} from '../../support/service-harness.ts';

const TS = 1_732_262_400_000;

const BAD: readonly { readonly kind: string; readonly reason: string; readonly value: string | null }[] = [
  { kind: 'invalid-json', reason: 'invalid_json', value: '{"id":"x","ts":' },
  { kind: 'missing-field', reason: 'missing_field', value: `{"id":"x","ts":${TS},"metric":"temp"}` },
  { kind: 'wrong-type', reason: 'wrong_type', value: `{"id":"x","ts":${TS},"metric":"temp","value":"12"}` },
  { kind: 'nul-in-id', reason: 'id_contains_nul', value: `{"id":"a\\u0000b","ts":${TS},"metric":"temp","value":1}` },
  { kind: 'empty-id', reason: 'id_empty', value: JSON.stringify({ id: '', ts: TS, metric: 'temp', value: 1 }) },
  { kind: 'id-too-long', reason: 'id_too_long', value: JSON.stringify({ id: 'x'.repeat(129), ts: TS, metric: 'temp', value: 1 }) },
  { kind: 'not-finite', reason: 'value_not_finite', value: `{"id":"x","ts":${TS},"metric":"temp","value":1e400}` },
  { kind: 'ts-out-of-range', reason: 'ts_out_of_range', value: JSON.stringify({ id: 'x', ts: Date.UTC(2500, 0, 1), metric: 'temp', value: 1 }) },
  { kind: 'cell-too-large', reason: 'cell_too_large', value: JSON.stringify({ id: 'x', ts: TS, metric: 'temp', value: 1, tags: { note: 'y'.repeat(3000) } }) },
  { kind: 'tombstone', reason: 'invalid_json', value: null },
];

void test('bad records of every kind are dead-lettered with original bytes and reason; valid ones are written', async (t) => {
  for (const b of BAD) assert.ok((REJECT_REASONS as readonly string[]).includes(b.reason), `${b.reason} is a reject reason`);
  // One partition: the bad records sit between valid ones in the same ordered stream.
  const h = await createHarness(t, { prefix: 'dlq', partitions: 1, sets: ['events.maxCellBytes=2048'] });
  const valid = makeEvents(450);
  const messages: RawMessage[] = [];
  const per = Math.floor(valid.length / (BAD.length + 1));
  valid.forEach((e, i) => {
    messages.push({ key: e.id, value: JSON.stringify(e) });
    const b = i % per === per - 1 ? BAD[Math.floor(i / per)] : undefined;
    if (b !== undefined) messages.push({ key: `bad-${b.kind}`, value: b.value });
  });
  assert.equal(messages.length, valid.length + BAD.length);
  await produceRaw(h, messages);

  const group = uniqueName('it-dlq-g');
  const svc = await startInProcess(h, [`kafka.groupId=${group}`, 'http.port=0']);
  await waitForEvents(svc, messages.length);
  await waitForCommittedAtEnd(h, group);
  assert.deepEqual(await eventsProcessed(svc), { written: valid.length, dlq: BAD.length });

  const dlq = await readDlq(h, BAD.length);
  assert.equal(dlq.length, BAD.length, 'exactly one DLQ record per bad record');
  const byKey = new Map(dlq.map((m) => [m.key?.toString() ?? '', m]));
  for (const b of BAD) {
    const m = byKey.get(`bad-${b.kind}`);
    assert.ok(m, `DLQ record for ${b.kind}`);
    assert.equal(m.headers[DLQ_HEADERS.reason], b.reason, `reason for ${b.kind}`);
    assert.equal(m.headers[DLQ_HEADERS.topic], h.names.topic);
    assert.ok(m.headers[DLQ_HEADERS.offset] !== undefined && /^\d+$/.test(m.headers[DLQ_HEADERS.offset] ?? ''), `source offset for ${b.kind}`);
    if (b.value === null) assert.equal(m.value, null, 'tombstone stays a tombstone');
    else assert.deepEqual(m.value, Buffer.from(b.value), `original bytes for ${b.kind}`);
  }

  assert.equal(await countDataCells(h), valid.length, 'every valid event landed');
  assert.equal(await countRows(h, h.names.index), countIndexed(valid));
});
