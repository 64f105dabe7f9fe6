// The schema doctor's section of /ui on a real service: the service runs the doctor on its own tables
// shortly after start; the page (in headless Chromium) and /ui/data.json show the same findings as
// `tsingest doctor --json` for the same tables, run as a user runs it (with --no-codec-probe and
// --points-scan 0: the service neither probes codecs nor counts points, docs/DOCTOR.md). The harness makes its tables
// with compression NONE, so each gives a `storage.compression` note; none gives an error.
// TSI_DOCTOR_SCREENSHOT=<file.png> keeps a screenshot of the section (docs/img/doctor-ui.png).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Finding } from '../../../src/doctor/finding.ts';
import type { UiSnapshot } from '../../../src/ui/page.ts';
import { uniqueName } from '../../support/env.ts';
import { NODE_BIN, REPO_ROOT, createHarness, makeEvents, produceEvents, startInProcess, waitFor } from '../../support/service-harness.ts';
import { dumpDom, pngSize, screenshot } from './headless-chromium.ts';

const run = promisify(execFile);
const SHOT = { width: 1280, height: 1800 };
const key = (f: Pick<Finding, 'rule' | 'subject'>): string => `${f.rule} | ${f.subject}`;
const unescape = (s: string): string =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

void test('/ui shows the schema doctor findings on the service tables, the same as tsingest doctor --json', async (t) => {
  const h = await createHarness(t, { prefix: 'uidoc', partitions: 1 });
  const svc = await startInProcess(h, [
    `kafka.groupId=${uniqueName('it-uidoc')}`,
    'http.port=0',
    'doctor.everyMs=600000',
    'doctor.sampleRows=5',
    'metrics.heatmapSampleMs=1000',
  ]);
  const base = `http://127.0.0.1:${svc.httpPort}`;
  const snapshot = async (): Promise<UiSnapshot> => (await (await fetch(`${base}/ui/data.json`)).json()) as UiSnapshot;

  // The first run comes 5 s after start.
  await waitFor('the first doctor run', 60_000, async () => (await snapshot()).doctor.lastRun !== null, 500);
  const { doctor } = await snapshot();
  assert.equal(doctor.lastRun?.outcome, 'ok', doctor.lastRun?.error);
  assert.equal(doctor.everyMs, 600_000);
  const tables = [h.names.data, h.names.index, h.names.rollup, h.names.meta];
  assert.ok(doctor.report !== null);
  assert.deepEqual(doctor.report.checked.tables, tables, 'the service checks its own four tables');
  assert.equal(doctor.report.counts.error, 0);
  for (const table of tables) {
    assert.ok(
      doctor.report.findings.some((f) => f.rule === 'storage.compression' && f.subject === `table ${table} family d`),
      `${table}: its compression note`,
    );
  }

  const cli = await run(
    NODE_BIN,
    ['src/cli.ts', 'doctor', '--json', '--no-codec-probe', '--points-scan', '0', '--sample-rows', '5', ...h.baseSets.flatMap((s) => ['--set', s])],
    {
      cwd: REPO_ROOT,
      maxBuffer: 16 << 20,
    },
  );
  const byHand = JSON.parse(cli.stdout) as { checked: { tables: string[] }; findings: Finding[] };
  assert.deepEqual(byHand.checked.tables, tables);
  assert.deepEqual(
    doctor.report.findings.map(key).sort(),
    byHand.findings.map(key).sort(),
    'the same findings as tsingest doctor --json --no-codec-probe --points-scan 0',
  );

  const dom = await dumpDom(`${base}/ui`);
  assert.match(dom, /<section id="doctor" data-state="ok">/);
  const rows = [...dom.matchAll(/<tr class="finding" data-severity="([^"]*)" data-rule="([^"]*)" data-subject="([^"]*)">/g)].map((m) => ({
    severity: m[1] ?? '',
    rule: unescape(m[2] ?? ''),
    subject: unescape(m[3] ?? ''),
  }));
  assert.deepEqual(rows.map(key), doctor.report.findings.map(key), 'the page lists the findings of data.json, in order');
  assert.ok(!rows.some((r) => r.severity === 'error'));
  assert.match(dom, new RegExp(`<span class="sev sev-info" data-severity="info" data-count="${doctor.report.counts.info}">`));
  assert.match(dom, /<a href="https:\/\/hbase\.apache\.org\/book\.html#compression">compression<\/a>/);

  const metrics = await (await fetch(`${base}/metrics`)).text();
  assert.match(metrics, new RegExp(`^tsingest_doctor_findings\\{severity="info"\\} ${doctor.report.counts.info}$`, 'm'));
  assert.match(metrics, /^tsingest_doctor_runs_total\{outcome="ok"\} 1$/m);

  const keep = process.env['TSI_DOCTOR_SCREENSHOT'];
  if (keep !== undefined && keep !== '') {
    // For the picture only: some writes, so the heatmap and hot ids above the section are not empty.
    for (let wave = 0; wave < 4; wave++) {
      await produceEvents(h, makeEvents(400, { idPrefix: 'pump', base: 1_732_262_400_000 + wave * 1_000_000 }));
      await new Promise((r) => setTimeout(r, 1500));
    }
    await waitFor('the heatmap to hold the writes', 60_000, async () => (await snapshot()).heatmap.rows.reduce((n, r) => n + r.total, 0) >= 1600, 500);
    const png = join(mkdtempSync(join(tmpdir(), 'tsi-doctor-ui-')), 'doctor-ui.png');
    await screenshot(`${base}/ui`, png, SHOT);
    assert.deepEqual(pngSize(readFileSync(png)), SHOT);
    copyFileSync(png, keep);
  }
});
