import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodedRegionName, probeCodecs } from '../../../src/doctor/gather.ts';
import { renderJson, renderText } from '../../../src/doctor/doctor-render.ts';
import { SampleAccumulator } from '../../../src/doctor/sample.ts';
import type { Finding } from '../../../src/doctor/finding.ts';

test('a region is matched to its load by the encoded name at the end of the full name', () => {
  assert.equal(encodedRegionName('t,\\x05,1700000000000.0a1b2c3d4e5f60718293a4b5c6d7e8f9.'), '0a1b2c3d4e5f60718293a4b5c6d7e8f9');
  assert.equal(encodedRegionName('odd name'), 'odd name');
});

test('the sample accumulator: averages, maxima, where the largest cell is, cells of 1 MB or more', () => {
  const acc = new SampleAccumulator();
  const cell = (q: string, bytes: number): { column: Buffer; family: Buffer; qualifier: Buffer; timestamp: number; value: Buffer } => ({
    column: Buffer.from(`d:${q}`),
    family: Buffer.from('d'),
    qualifier: Buffer.from(q),
    timestamp: 1,
    value: Buffer.alloc(bytes),
  });
  acc.add({ row: Buffer.from('ab'), cells: [cell('v', 10), cell('temperature', 2 << 20)] });
  acc.add({ row: Buffer.from('abcdef'), cells: [cell('v', 5)] });
  const f = acc.facts();
  assert.equal(f.rows, 2);
  assert.equal(f.cells, 3);
  assert.equal(f.maxCellBytes, 2 << 20);
  assert.equal(f.maxCellAt?.column, 'd:temperature');
  assert.equal(f.cellsOver1MB, 1);
  assert.deepEqual(f.rowKeyBytes, { avg: 4, max: 6 });
  assert.deepEqual(f.qualifierBytes, { avg: 13 / 3, max: 11 });
  assert.deepEqual(new SampleAccumulator().facts().rowKeyBytes, { avg: 0, max: 0 });
});

test('text output names every part of a finding and counts them; JSON carries the same', () => {
  const f: Finding = {
    rule: 'storage.bloom',
    severity: 'warn',
    subject: 'table t family d',
    measured: 'BLOOMFILTER NONE',
    threshold: 'ROW',
    source: 'https://hbase.apache.org/book.html#schema.bloom',
    fix: 'alter',
  };
  const text = renderText([f], { tables: ['t'], servers: 1 }).join('\n');
  for (const part of [
    '! WARN  storage.bloom  table t family d',
    'measured:  BLOOMFILTER NONE',
    'threshold: ROW',
    'fix:       alter',
    'source:    https://hbase.apache.org/book.html#schema.bloom',
    '0 error(s), 1 warning(s), 0 note(s)',
  ])
    assert.ok(text.includes(part), part);
  assert.match(renderText([], { tables: ['t'], servers: 1 }).join('\n'), /✓ no findings/);
  const json = JSON.parse(renderJson([f], { tables: ['t'], servers: 1 })) as { counts: Record<string, number>; findings: Finding[] };
  assert.deepEqual(json.counts, { error: 0, warn: 1, info: 0 });
  assert.deepEqual(json.findings, [f]);
});

test('the codec probe: its answer upper case; a failure becomes its first line (bounded), never a rejection; no probe, no facts', async () => {
  assert.deepEqual(await probeCodecs(() => Promise.resolve(['gz', 'NONE', 'Snappy'])), { codecsUsable: ['GZ', 'NONE', 'SNAPPY'] });
  assert.deepEqual(await probeCodecs(undefined), {});
  const timeout = await probeCodecs(() =>
    Promise.reject(new Error('codecs: admin tool did not answer within 30000 ms (killed)\n--- admin tool stderr (tail) ---\nstarting')),
  );
  assert.deepEqual(timeout, { codecProbeFailure: 'codecs: admin tool did not answer within 30000 ms (killed)' });
  const long = await probeCodecs(() => Promise.reject(new Error('x'.repeat(1000))));
  assert.equal(long.codecProbeFailure?.length, 300);
  assert.deepEqual(await probeCodecs(() => Promise.reject(new Error(''))), { codecProbeFailure: 'no reason given' });
});
