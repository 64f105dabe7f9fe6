// The runner's summary (scripts/lib/test-run/): the reporter turns node:test's summaries into JSON
// lines, and the closing report adds the groups up and fails when any group failed or wrote no summary.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestEvent } from 'node:test/reporters';
import summaryReporter, { type FailureLine, type SummaryLine } from '../../../scripts/lib/test-run/summary-reporter.ts';
import { oneLine, passed, report, type GroupResult } from '../../../scripts/lib/test-run/run-group.ts';
import { explicitGroup } from '../../../scripts/lib/test-run/groups.ts';

const counts = { tests: 3, passed: 2, failed: 1, cancelled: 0, skipped: 0, todo: 0, suites: 0, topLevel: 3 };

void test('the reporter writes one JSON line per summary, with the file when there is one, and nothing else', async () => {
  async function* events(): AsyncGenerator<TestEvent> {
    await Promise.resolve();
    yield { type: 'test:summary', data: { counts, duration_ms: 12.5, file: '/x/a.test.ts', success: false } };
    yield { type: 'test:watch:drained', data: undefined };
    yield { type: 'test:summary', data: { counts, duration_ms: 20, file: undefined, success: false } };
  }
  const out: string[] = [];
  for await (const s of summaryReporter(events())) out.push(s);
  assert.deepEqual(
    out.map((l) => JSON.parse(l) as SummaryLine),
    [
      { file: '/x/a.test.ts', tests: 3, passed: 2, failed: 1, cancelled: 0, skipped: 0, todo: 0, durationMs: 12.5, success: false },
      { tests: 3, passed: 2, failed: 1, cancelled: 0, skipped: 0, todo: 0, durationMs: 20, success: false },
    ],
  );
});

const line = (over: Partial<SummaryLine>): SummaryLine => ({
  tests: 2,
  passed: 2,
  failed: 0,
  cancelled: 0,
  skipped: 0,
  todo: 0,
  durationMs: 1000,
  success: true,
  ...over,
});
const result = (name: string, over: Partial<GroupResult>): GroupResult => ({
  group: { ...explicitGroup([name]), about: name },
  code: 0,
  total: line({}),
  files: [line({ file: `${name}.test.ts` })],
  failures: [],
  wallMs: 1000,
  ...over,
});

void test('the report: a line per group, the slowest files, and a total that passes only when every group did', () => {
  const ok = report([result('a', {}), result('b', { total: line({ tests: 5, passed: 5 }), files: [line({ file: 'slow.test.ts', durationMs: 9000 })] })]);
  assert.match(ok[0] ?? '', /^group files: tests 2, pass 2, fail 0, .*1 file\(s\), 1 at a time, 1\.0 s: passed$/);
  assert.match(ok.find((l) => l.includes('slow.test.ts')) ?? '', /9\.0 s {2}slow\.test\.ts/);
  assert.match(ok.at(-1) ?? '', /^total over 2 group\(s\): tests 7, pass 7, fail 0, .*: passed$/);

  const failing = result('c', {
    code: 1,
    total: line({ failed: 1, passed: 1, success: false }),
    failures: [{ file: 'c.test.ts', name: 'drains', message: 'exit 1\nservice output:\nline' }],
  });
  const crashed = result('d', { code: 1, total: undefined, files: [] });
  assert.equal(passed(failing), false);
  assert.equal(passed(crashed), false);
  assert.equal(passed(result('e', { code: 1 })), false, 'a non-zero exit fails the group even with a clean summary');
  const bad = report([result('a', {}), failing, crashed]);
  assert.match(bad.find((l) => l.startsWith('group') && l.includes('no summary')) ?? '', /FAILED \(exit 1, no summary from node:test\)/);
  assert.match(bad.at(-1) ?? '', /fail 1, .*: FAILED$/);
  assert.equal(bad.at(-2), 'failed (files): c.test.ts › drains: exit 1 ⏎ service output: ⏎ line', 'each failure, on one line, just before the total');
});

void test("the reporter writes a line per failed test with its error (a suite's failure is its tests'), and a long message keeps its head and tail", async () => {
  const cause = new Error('expected 0, got 1');
  const wrapped = Object.assign(new Error('test failed'), { cause });
  async function* events(): AsyncGenerator<TestEvent> {
    await Promise.resolve();
    type Fail = Extract<TestEvent, { type: 'test:fail' }>;
    const fail = (name: string, type: 'test' | 'suite'): Fail => {
      const details: Fail['data']['details'] = { duration_ms: 5, error: wrapped, type };
      return { type: 'test:fail', data: { nesting: 0, testNumber: 1, line: 1, column: 1, name, file: '/x/a.test.ts', details } } as unknown as Fail; // @types/node's TestFail asks for more than node:test sends
    };
    yield fail('drains', 'test');
    yield fail('a suite', 'suite');
  }
  const out: string[] = [];
  for await (const s of summaryReporter(events())) out.push(s);
  assert.deepEqual(
    out.map((l) => JSON.parse(l) as FailureLine),
    [{ failure: { file: '/x/a.test.ts', name: 'drains', message: 'expected 0, got 1' } }],
  );
  const long = `${'a'.repeat(1000)}\n${'b'.repeat(2000)}`;
  const flat = oneLine(long, 100);
  assert.equal(flat.length, 100 + ' … '.length);
  assert.ok(flat.startsWith('a'.repeat(25)) && flat.endsWith('b'.repeat(75)));
});
