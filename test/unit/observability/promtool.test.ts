// The Prometheus rules of deploy/prometheus: valid (promtool check), every rule covered by a
// `promtool test rules` unit test, and those tests pass. promtool comes from Debian's prometheus
// package (scripts/lib/stack/ensure-tools.ts installs it for `npm test`).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const PROM_DIR = join(ROOT, 'deploy', 'prometheus');
const yamlFiles = (dir: string): string[] =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.yml'))
    .sort()
    .map((f) => join(dir, f));
const RULE_FILES = yamlFiles(join(PROM_DIR, 'rules'));
const TEST_FILES = yamlFiles(join(PROM_DIR, 'tests'));

function promtool(args: readonly string[]): { status: number | null; output: string } {
  const res = spawnSync('promtool', args, { cwd: ROOT, encoding: 'utf8' });
  if (res.error !== undefined) throw new Error(`cannot run promtool (${res.error.message}); install Debian's prometheus package or put promtool on PATH`);
  return { status: res.status, output: `${res.stdout}${res.stderr}` };
}

function names(files: readonly string[], pattern: RegExp): string[] {
  return files.flatMap((f) => [...readFileSync(f, 'utf8').matchAll(pattern)].map((m) => m[1] ?? ''));
}

void describe('deploy/prometheus rules', () => {
  void it('has rule files and rule tests', () => {
    assert.deepEqual(
      RULE_FILES.map((f) => f.slice(PROM_DIR.length + 1)),
      ['rules/tsingest-alerts.yml', 'rules/tsingest-recording.yml'],
    );
    assert.ok(TEST_FILES.length >= 2, `tests found: ${TEST_FILES.join(', ')}`);
  });

  void it('passes promtool check rules', () => {
    const res = promtool(['check', 'rules', ...RULE_FILES]);
    assert.equal(res.status, 0, res.output);
    const alerts = names(RULE_FILES, /^\s*- alert: (\S+)/gm);
    const records = names(RULE_FILES, /^\s*- record: (\S+)/gm);
    // promtool reports per file how many rules it found: all of them, none skipped
    const found = [...res.output.matchAll(/SUCCESS: (\d+) rules found/g)].reduce((n, m) => n + Number(m[1]), 0);
    assert.equal(found, alerts.length + records.length);
  });

  void it('prometheus.yml (the compose config) is valid and loads the rule files', () => {
    // promtool checks that the scrape's secret files exist: the compose secrets (/run/secrets/…) are
    // stood in for by files of a temp dir, beside a copy of the rules.
    const dir = mkdtempSync(join(tmpdir(), 'tsi-promtool-'));
    try {
      cpSync(join(PROM_DIR, 'rules'), join(dir, 'rules'), { recursive: true });
      const text = readFileSync(join(PROM_DIR, 'prometheus.yml'), 'utf8');
      const secrets = [...new Set([...text.matchAll(/\/run\/secrets\/([\w.-]+)/g)].map((m) => m[1] ?? ''))];
      assert.deepEqual(secrets.sort(), ['http-ca.crt', 'prometheus-token'], 'the scrape reads its token and CA from compose secrets');
      for (const s of secrets) writeFileSync(join(dir, s), 'x');
      writeFileSync(join(dir, 'prometheus.yml'), text.replaceAll('/run/secrets/', `${dir}/`));
      const res = promtool(['check', 'config', join(dir, 'prometheus.yml')]);
      assert.equal(res.status, 0, res.output);
      assert.match(res.output, new RegExp(`SUCCESS: ${RULE_FILES.length} rule files found`));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  void it('every alert and recording rule is exercised by a promtool unit test', () => {
    const tests = TEST_FILES.map((f) => readFileSync(f, 'utf8')).join('\n');
    const alertsTested = new Set(names(TEST_FILES, /alertname: (\S+)/g));
    for (const alert of names(RULE_FILES, /^\s*- alert: (\S+)/gm)) assert.ok(alertsTested.has(alert), `no alert_rule_test for ${alert}`);
    for (const record of names(RULE_FILES, /^\s*- record: (\S+)/gm))
      assert.ok(tests.includes(`expr: ${record}`) || tests.includes(`(${record}`), `no promql_expr_test for ${record}`);
  });

  void it('passes promtool test rules', () => {
    const res = promtool(['test', 'rules', ...TEST_FILES]);
    assert.equal(res.status, 0, res.output);
    assert.equal([...res.output.matchAll(/SUCCESS/g)].length, TEST_FILES.length, res.output);
    assert.doesNotMatch(res.output, /FAILED/);
  });
});
