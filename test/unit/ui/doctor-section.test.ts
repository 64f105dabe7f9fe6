import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Finding } from '../../../src/doctor/finding.ts';
import { DOCTOR_OFF, type DoctorReport, type DoctorSnapshot } from '../../../src/doctor/scheduler.ts';
import { duration, renderDoctor } from '../../../src/ui/doctor-section.ts';
import { renderPage } from '../../../src/ui/ui-render.ts';

const T = 1_700_000_000_000; // 22:13:20 UTC
const count = (html: string, re: RegExp): number => [...html.matchAll(re)].length;

const findings: Finding[] = [
  {
    rule: 'keyspace.unreachable-region',
    severity: 'error',
    subject: 'region t,<x>,1',
    measured: 'starts at "10000000"',
    threshold: 'reachable',
    source: 'https://hbase.apache.org/book.html#rowkey.regionsplits',
    fix: 'tables apply',
  },
  {
    rule: 'storage.compression',
    severity: 'info',
    subject: 'table t family d',
    measured: 'COMPRESSION NONE',
    threshold: 'a block codec',
    source: 'https://hbase.apache.org/book.html#compression',
    fix: "alter 't', {NAME => 'd', COMPRESSION => 'SNAPPY'}",
  },
  { rule: 'odd.source', severity: 'warn', subject: 'table t', measured: 'm', threshold: 't', source: 'javascript:alert(1)', fix: 'f' },
];
const report: DoctorReport = { at: T, checked: { tables: ['t', 'i'], servers: 1 }, counts: { error: 1, warn: 1, info: 1 }, findings };
const ok: DoctorSnapshot = { everyMs: 600_000, running: false, nextRunAt: T + 600_000, lastRun: { startedAt: T - 400, finishedAt: T, outcome: 'ok' }, report };

void describe('the schema doctor section', () => {
  void it('shows when it ran, the counts by severity and every finding, escaped', () => {
    const html = renderDoctor(ok, T + 180_000);
    assert.match(html, /^<section id="doctor" data-state="ok"><h2>Schema doctor<\/h2>/);
    assert.match(
      html,
      /last run 22:13:20 UTC \(3 min ago\), took 0\.4 s · 2 tables \(t, i\) on 1 region server · next run at 22:23:20 UTC · every 10 min \(doctor\.everyMs\)/,
    );
    assert.match(
      html,
      /<span class="sev sev-error" data-severity="error" data-count="1">1 error<\/span> <span class="sev sev-warn" data-severity="warn" data-count="1">1 warning<\/span> <span class="sev sev-info" data-severity="info" data-count="1">1 note<\/span>/,
    );
    assert.equal(count(html, /<tr class="finding"/g), 3);
    assert.match(html, /<tr class="finding" data-severity="error" data-rule="keyspace.unreachable-region" data-subject="region t,&lt;x&gt;,1">/);
    assert.match(html, /<td>starts at &quot;10000000&quot;<\/td>/);
    assert.match(html, /<td>alter &#39;t&#39;, \{NAME =&gt; &#39;d&#39;, COMPRESSION =&gt; &#39;SNAPPY&#39;\}<\/td>/);
    assert.match(html, /<a href="https:\/\/hbase\.apache\.org\/book\.html#compression">compression<\/a>/);
    assert.doesNotMatch(html, /href="javascript/, 'only http(s) sources become links');
    assert.match(html, /<td>javascript:alert\(1\)<\/td>/);
    assert.doesNotMatch(html, /<x>/);
  });

  void it('says when the last run failed, with its reason, and which run the findings are from', () => {
    const failed: DoctorSnapshot = { ...ok, lastRun: { startedAt: T + 600_000, finishedAt: T + 630_000, outcome: 'failed', error: 'gateway <b>down</b>' } };
    const html = renderDoctor(failed, T + 640_000);
    assert.match(html, /data-state="failed"/);
    assert.match(
      html,
      /<p id="doctor-failed" class="failed">✗ The last run failed: <span class="reason">gateway &lt;b&gt;down&lt;\/b&gt;<\/span>\. The findings below are from the run at 22:13:20 UTC\.<\/p>/,
    );
    assert.equal(count(html, /<tr class="finding"/g), 3);
    const never = renderDoctor({ ...failed, report: null }, T + 640_000);
    assert.match(never, /No run has completed yet\./);
    assert.doesNotMatch(never, /doctor-findings|doctor-counts/);
  });

  void it('before the first run, while running, without findings, and off', () => {
    const pending = renderDoctor({ ...ok, lastRun: null, report: null, nextRunAt: T + 5000 }, T);
    assert.match(pending, /data-state="pending"/);
    assert.match(pending, /first run at 22:13:25 UTC/);
    assert.match(pending, /Not run yet\./);
    assert.match(renderDoctor({ ...ok, running: true, nextRunAt: null }, T), /took 0\.4 s · 2 tables \(t, i\) on 1 region server · running now · every/);
    const clean = renderDoctor({ ...ok, report: { ...report, counts: { error: 0, warn: 0, info: 0 }, findings: [] } }, T);
    assert.match(clean, /<p id="doctor-none">✓ no findings<\/p>/);
    assert.match(clean, /<span class="sev sev-none" data-severity="error" data-count="0">0 errors<\/span>/, 'a zero count is not coloured');
    const off = renderDoctor(DOCTOR_OFF, T);
    assert.match(off, /data-state="off"/);
    assert.match(off, /doctor\.everyMs 0/);
  });

  void it('periods for people', () => {
    assert.equal(duration(45_000), '45 s');
    assert.equal(duration(600_000), '10 min');
    assert.equal(duration(5_400_000), '1.5 h');
  });

  void it('sits in the page under the hot ids', () => {
    const page = renderPage(
      {
        generatedAt: T,
        table: 't',
        buckets: 1,
        heatmap: { sampleMs: 5000, maxSamples: 4, times: [], rows: [] },
        hotIds: { windowMs: 60_000, total: 0, capacity: 16, errorBound: 0, undecodable: 0, ids: [] },
        doctor: ok,
      },
      0,
    );
    assert.ok(page.indexOf('<h2>Hot ids</h2>') < page.indexOf('<section id="doctor"'));
    assert.ok(page.indexOf('<section id="doctor"') < page.indexOf('</div></body>'), 'inside the refreshed content');
    assert.match(page, /<a href="#doctor">schema doctor<\/a>/);
  });
});
