// The CPU-profile breakdown of the benchmark: samples charged to the top frame's category.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { breakdown, categorize } from '../../../scripts/lib/bench/profile.ts';
import { parseMetrics, sumOf } from '../../../scripts/lib/bench/child.ts';

test('frames are classified by script URL and name', () => {
  assert.equal(categorize('decodeMessages', 'file:///app/node_modules/kafkajs/src/protocol/recordBatch/v0/index.js'), 'Kafka fetch + decode (kafkajs)');
  assert.equal(categorize('parse', ''), 'JSON parse + event validation');
  assert.equal(categorize('encodeCellSetProto', 'file:///app/src/hbase/protobuf.ts'), 'body encoding (protobuf / JSON)');
  assert.equal(categorize('encodeDataKey', 'file:///app/src/keys/data-key.ts'), 'row building (keys, cells, index rows)');
  assert.equal(categorize('onData', 'file:///app/node_modules/undici/lib/dispatcher/client-h1.js'), 'HTTP (undici, REST transport)');
  assert.equal(categorize('send', 'file:///app/src/hbase/undici-transport.ts'), 'HTTP (undici, REST transport)');
  assert.equal(categorize('buildEventCells', 'file:///app/src/events/cells.ts'), 'row building (keys, cells, index rows)');
  assert.equal(categorize('parseEvent', 'file:///app/src/events/parse.ts'), 'JSON parse + event validation');
  assert.equal(categorize('(garbage collector)', ''), 'garbage collection');
  assert.equal(categorize('(idle)', ''), 'idle');
  assert.equal(categorize('readableAddChunk', 'node:internal/streams/readable'), 'Node internals (net, streams, timers, buffers)');
});

test('self time per category sums the deltas of samples whose top frame is in it; idle is left out', () => {
  const profile = {
    nodes: [
      { id: 1, callFrame: { functionName: '(root)', url: '' } },
      { id: 2, callFrame: { functionName: '(idle)', url: '' } },
      { id: 3, callFrame: { functionName: 'decode', url: 'file:///x/node_modules/kafkajs/a.js' } },
      { id: 4, callFrame: { functionName: 'encodeCellSetProto', url: 'file:///x/src/hbase/protobuf.ts' } },
    ],
    samples: [3, 3, 4, 2, 3],
    timeDeltas: [1000, 2000, 500, 9000, 1000],
  };
  const { self } = breakdown(profile);
  assert.equal(self.get('Kafka fetch + decode (kafkajs)'), 4);
  assert.equal(self.get('body encoding (protobuf / JSON)'), 0.5);
  assert.equal(
    [...self.values()].reduce((a, v) => a + v, 0),
    4.5,
  );
});

test('built-in frames are charged to their nearest categorised caller; without one they stay Node internals', () => {
  const profile = {
    nodes: [
      { id: 1, callFrame: { functionName: '(root)', url: '' }, children: [2, 5, 7] },
      { id: 2, callFrame: { functionName: 'encodeCellSetProto', url: 'file:///x/src/hbase/protobuf.ts' }, children: [3] },
      { id: 3, callFrame: { functionName: 'alloc', url: 'node:buffer' }, children: [4] },
      { id: 4, callFrame: { functionName: 'allocUnsafe', url: '' } },
      { id: 5, callFrame: { functionName: 'processTicksAndRejections', url: 'node:internal/process/task_queues' }, children: [6] },
      { id: 6, callFrame: { functionName: 'setTimeout', url: 'node:timers' } },
      { id: 7, callFrame: { functionName: '(garbage collector)', url: '' } },
    ],
    samples: [4, 3, 2, 6, 7],
    timeDeltas: [1000, 1000, 1000, 3000, 2000],
  };
  const { self, charged } = breakdown(profile);
  assert.equal(self.get('body encoding (protobuf / JSON)'), 1);
  assert.equal(self.get('Node internals (net, streams, timers, buffers)'), 5);
  assert.equal(charged.get('body encoding (protobuf / JSON)'), 3);
  assert.equal(charged.get('Node internals (net, streams, timers, buffers)'), 3);
  assert.equal(charged.get('garbage collection'), 2);
  assert.equal(
    [...charged.values()].reduce((a, v) => a + v, 0),
    [...self.values()].reduce((a, v) => a + v, 0),
  );
});

test('Prometheus text is parsed into samples with labels; sums filter by label', () => {
  const text = [
    '# HELP tsingest_events_total events',
    '# TYPE tsingest_events_total counter',
    'tsingest_events_total{outcome="written"} 1200',
    'tsingest_events_total{outcome="dead_lettered"} 3',
    'tsingest_end_to_end_latency_seconds_bucket{le="+Inf"} 10',
    'tsingest_queue_depth 0',
  ].join('\n');
  const s = parseMetrics(text);
  assert.equal(sumOf(s, 'tsingest_events_total', { outcome: 'written' }), 1200);
  assert.equal(sumOf(s, 'tsingest_events_total'), 1203);
  assert.equal(s.find((x) => x.name.endsWith('_bucket'))?.labels['le'], '+Inf');
  assert.equal(sumOf(s, 'tsingest_queue_depth'), 0);
});
