import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RebuildReport } from '../../../src/index-tools/rebuild.ts';
import { rebuildJson, rebuildText, sampleLine, verifyJson, verifyText, windowText } from '../../../src/index-tools/report.ts';
import type { FindingSample } from '../../../src/index-tools/tally.ts';
import type { VerifyReport } from '../../../src/index-tools/verify.ts';
import { configOf, toolSettings } from './fixtures.ts';

const s = toolSettings(configOf());
const ghost: FindingSample = {
  tag: 'site',
  value: 's9',
  id: 'ghost',
  ts: 0,
  iso: '1970-01-01T00:00:00.000Z',
  reason: 'no_data_row',
  metrics: ['temp'],
  key: '00',
};
const report: VerifyReport = {
  consistent: false,
  interrupted: false,
  counts: { dataRowsChecked: 10, indexRowsChecked: 12, dangling: 3, missing: 0, malformed: 0 },
  samples: { dangling: [ghost], missing: [], malformed: [] },
};

void test('verify text: counts, samples (noting when there are more), verdict', () => {
  const lines = verifyText(report, s);
  assert.equal(lines[0], 'index verify: d ↔ i, tags site, rack, all time');
  assert.ok(lines.some((l) => /^ {2}index rows checked +12$/.test(l)));
  assert.ok(lines.some((l) => /^ {2}dangling +3 {2}index rows without/.test(l)));
  assert.ok(lines.includes('dangling (first 1 of 3):'));
  assert.ok(lines.includes('  site=s9 id=ghost ts=1970-01-01T00:00:00.000Z  no_data_row  [temp]'));
  assert.match(lines.at(-1) ?? '', /^✗ inconsistent: 3 dangling, 0 missing/);
  assert.equal(
    verifyText({ ...report, consistent: true, counts: { ...report.counts, dangling: 0 }, samples: { dangling: [], missing: [], malformed: [] } }, s).at(-1),
    '✓ consistent',
  );
  assert.equal(
    sampleLine({ ...ghost, reason: 'tag_mismatch', dataValue: null }),
    '  site=s9 id=ghost ts=1970-01-01T00:00:00.000Z  tag_mismatch (data row has no such tag)  [temp]',
  );
});

void test('verify JSON carries the verdict, counts, samples and what was checked', () => {
  const j = JSON.parse(verifyJson(report, toolSettings(configOf(), { from: 0, to: 1000 }))) as Record<string, unknown>;
  assert.deepEqual(j, {
    command: 'verify',
    consistent: false,
    interrupted: false,
    tables: { data: 'd', index: 'i' },
    tags: ['site', 'rack'],
    window: { from: 0, to: 1000 },
    counts: report.counts,
    samples: report.samples,
  });
  assert.equal(windowText(toolSettings(configOf(), { from: 0 })), '1970-01-01T00:00:00.000Z ≤ ts < ∞');
});

void test('rebuild text for finished, interrupted and already finished runs', () => {
  const r: RebuildReport = {
    status: 'finished',
    unitsTotal: 12,
    unitsResumed: 4,
    found: { dataRowsChecked: 10, indexRowsChecked: 9, dangling: 1, missing: 2, malformed: 0 },
    samples: { dangling: [ghost], missing: [], malformed: [] },
    indexRowsWritten: 2,
    danglingDeleted: 1,
    danglingKept: 0,
  };
  const ctx = { graceMs: 600_000, checkpoint: 'cp.json' };
  const text = rebuildText(r, s, ctx);
  assert.ok(text.some((l) => /^ {2}index rows written +2/.test(l)));
  assert.ok(text.some((l) => /^ {2}dangling kept +0 {2}events newer than now − 600000 ms/.test(l)));
  assert.equal(text.at(-1), '✓ finished (resumed: 4 of 12 scan units were done by an earlier run)');
  assert.equal(rebuildText({ ...r, status: 'interrupted' }, s, ctx).at(-1), '✗ interrupted: rerun with --checkpoint cp.json to continue');
  assert.equal(rebuildText({ ...r, status: 'interrupted' }, s, { ...ctx, checkpoint: null }).at(-1), '✗ interrupted (no --checkpoint: a rerun starts over)');
  assert.match(rebuildText({ ...r, status: 'already_finished' }, s, ctx).at(-1) ?? '', /already finished according to checkpoint cp\.json/);
  const j = JSON.parse(rebuildJson(r, s, ctx)) as Record<string, unknown>;
  assert.equal(j['status'], 'finished');
  assert.equal(j['indexRowsWritten'], 2);
  assert.equal(j['checkpoint'], 'cp.json');
});
