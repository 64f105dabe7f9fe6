// The CPU-profile breakdown of the benchmark: samples charged to the top frame's category.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { breakdown, categorize } from '../../../scripts/lib/bench-profile.ts';
import { parseMetrics, sumOf } from '../../../scripts/lib/bench-child.ts';

test('frames are classified by script URL and name', () => {
  assert.equal(categorize('decodeMessages', 'file:///app/node_modules/kafkajs/src/protocol/recordBatch/v0/index.js'), 'Kafka fetch + decode (kafkajs)');
  assert.equal(categorize('parse', ''), 'JSON parse + event validation');
  assert.equal(categorize('encodeCellSetProto', 'file:///app/src/hbase/protobuf.ts'), 'body encoding (protobuf / JSON)');
  assert.equal(categorize('encodeDataKey', 'file:///app/src/keys/data-key.ts'), 'row building (keys, cells, index rows)');
  assert.equal(categorize('onData', 'file:///app/node_modules/undici/lib/dispatcher/client-h1.js'), 'HTTP (undici)');
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
  const b = breakdown(profile);
  assert.equal(b.get('Kafka fetch + decode (kafkajs)'), 4);
  assert.equal(b.get('body encoding (protobuf / JSON)'), 0.5);
  assert.equal([...b.values()].reduce((a, v) => a + v, 0), 4.5);
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
