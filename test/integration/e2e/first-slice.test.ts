// The first end-to-end slice: JSON events through a real Kafka topic, consumed by a consumer group,
// written under the DESIGN.md data rowkey to a real HBase through its REST gateway, and read back
// decoded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Kafka, logLevel } from 'kafkajs';
import { HBaseRestClient } from '../../../src/hbase/index.ts';
import { decodeDataKey, encodeDataKey, idPrefix } from '../../../src/keys/index.ts';
import { buildDataRow, decodeDataRow, DEFAULT_EVENT_LIMITS, DEFAULT_FIELD_MAPPING, parseEvent } from '../../../src/events/index.ts';
import { toRowCells } from '../../../src/hbase/row-cells.ts';
import { deferrer, testEnv, uniqueName } from '../../support/env.ts';

void test('events go Kafka → consumer → HBase under the salted rowkey and read back decoded', async (t) => {
  const env = testEnv();
  const defer = deferrer(t);
  const table = uniqueName('it_slice');
  const topic = uniqueName('it-slice');
  const hbase = new HBaseRestClient({ baseUrl: env.restUrl, defaultDeadlineMs: 30_000 });
  defer(() => hbase.close());
  await hbase.createTable({ name: table, families: [{ name: 'd', attributes: { VERSIONS: 1, BLOOMFILTER: 'ROW' } }] });
  defer(() => hbase.deleteTable(table, { ignoreMissing: true }));

  const kafka = new Kafka({ clientId: 'it-slice', brokers: env.kafkaBrokers.split(','), logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  defer(() => admin.disconnect());
  await admin.createTopics({ topics: [{ topic, numPartitions: 2 }], waitForLeaders: true });
  defer(() => admin.deleteTopics({ topics: [topic] }).catch(() => undefined));

  const base = 1_732_262_400_000;
  const sent = Array.from({ length: 50 }, (_, i) => ({
    id: `sensor-${i % 5}`,
    ts: base + i * 1000,
    metric: i % 2 === 0 ? 'temp' : 'hum',
    value: i / 4,
    tags: { site: `s${i % 3}` },
  }));
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic, acks: -1, messages: sent.map((e) => ({ key: e.id, value: JSON.stringify(e) })) });
  await producer.disconnect();

  const consumer = kafka.consumer({ groupId: uniqueName('it-slice-group') });
  await consumer.connect();
  defer(() => consumer.disconnect());
  await consumer.subscribe({ topic, fromBeginning: true });
  let written = 0;
  const done = new Promise<void>((resolve, reject) => {
    consumer
      .run({
        eachBatch: async ({ batch }) => {
          const rows = batch.messages.map((m) => {
            const parsed = parseEvent(m.value ?? Buffer.alloc(0), DEFAULT_FIELD_MAPPING, DEFAULT_EVENT_LIMITS);
            assert.ok(parsed.ok, 'every sent event is valid');
            return toRowCells(buildDataRow(parsed.event, 16));
          });
          await hbase.put(table, rows);
          written += rows.length;
          if (written >= sent.length) resolve();
        },
      })
      .catch(reject);
  });
  await done;

  // Every event is one cell under its rowkey; read back by Get and decode.
  for (const e of sent) {
    const row = await hbase.get(table, encodeDataKey(e, 16));
    assert.ok(row, `row for ${e.id}@${e.ts}`);
    const key = decodeDataKey(row.row);
    assert.deepEqual({ id: key.id, ts: key.ts }, { id: e.id, ts: e.ts });
    const decoded = decodeDataRow(row.cells.map((c) => ({ qualifier: c.qualifier, value: c.value })));
    assert.equal(decoded.metrics[e.metric], e.value);
    assert.deepEqual(decoded.tags, e.tags);
    assert.ok(
      row.cells.every((c) => c.timestamp === e.ts),
      'cell timestamp = event time',
    );
  }

  // "Latest N for an id" is one forward scan of salt‖id‖0x00: newest first.
  const prefix = idPrefix('sensor-3', 16);
  const latest: number[] = [];
  for await (const row of hbase.scan(table, { startRow: prefix, stopRow: Buffer.concat([prefix.subarray(0, -1), Buffer.from([0x01])]), limit: 3 })) {
    latest.push(decodeDataKey(row.row).ts);
  }
  const expected = sent
    .filter((e) => e.id === 'sensor-3')
    .map((e) => e.ts)
    .sort((a, b) => b - a)
    .slice(0, 3);
  assert.deepEqual(latest, expected);
});
