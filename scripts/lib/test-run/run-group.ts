// One group of scripts/test.ts as one `node --test` run: the spec reporter on stdout, and the summary
// reporter (summary-reporter.ts) into a file read back when the run ends; then the lines that add the
// groups up, so a run of several groups ends with one summary the reader can trust.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { TestGroup } from './groups.ts';
import type { FailureLine, SummaryLine } from './summary-reporter.ts';

const REPORTER = join(import.meta.dirname, 'summary-reporter.ts');

export interface GroupResult {
  readonly group: TestGroup;
  /** the exit code of `node --test` */
  readonly code: number;
  /** the run's own summary; undefined when node:test wrote none (it crashed or was killed) */
  readonly total: SummaryLine | undefined;
  /** one summary per test file */
  readonly files: readonly SummaryLine[];
  /** the failed tests, with their errors */
  readonly failures: readonly FailureLine['failure'][];
  readonly wallMs: number;
}

export function runGroup(
  group: TestGroup,
  opts: { readonly cwd: string; readonly env: NodeJS.ProcessEnv; readonly log: (m: string) => void },
): Promise<GroupResult> {
  const dir = mkdtempSync(join(tmpdir(), 'tsi-test-summary-'));
  const out = join(dir, 'summary.jsonl');
  const args = [
    '--test',
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    `--test-reporter=${REPORTER}`,
    `--test-reporter-destination=${out}`,
    '--test-timeout=600000',
    `--test-concurrency=${group.concurrency}`,
    ...group.files,
  ];
  opts.log(`group ${group.name} (${group.about}): ${group.files.length} file(s), ${group.concurrency} at a time`);
  const t0 = Date.now();
  return new Promise<number>((resolvePromise) => {
    const child = spawn(process.execPath, args, { cwd: opts.cwd, stdio: 'inherit', env: opts.env });
    child.on('close', (code) => {
      resolvePromise(code ?? 1);
    });
    child.on('error', () => {
      resolvePromise(1);
    });
  }).then((code) => {
    const all = readLines(out);
    rmSync(dir, { recursive: true, force: true });
    const lines = all.filter((l): l is SummaryLine => !('failure' in l));
    return {
      group,
      code,
      total: lines.find((l) => l.file === undefined),
      files: lines.filter((l) => l.file !== undefined).map((l) => ({ ...l, file: relative(opts.cwd, l.file ?? '') })),
      failures: all.flatMap((l) =>
        'failure' in l ? [{ ...l.failure, ...(l.failure.file === undefined ? {} : { file: relative(opts.cwd, l.failure.file) }) }] : [],
      ),
      wallMs: Date.now() - t0,
    };
  });
}

function readLines(file: string): (SummaryLine | FailureLine)[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as SummaryLine | FailureLine);
}

/** Whether a group passed: node:test exited 0, wrote its summary, and the summary says so. */
export function passed(r: GroupResult): boolean {
  return r.code === 0 && r.total !== undefined && r.total.success && r.total.failed === 0 && r.total.cancelled === 0;
}

const secs = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

function counts(s: Pick<SummaryLine, 'tests' | 'passed' | 'failed' | 'cancelled' | 'skipped' | 'todo'>): string {
  return `tests ${s.tests}, pass ${s.passed}, fail ${s.failed}, cancelled ${s.cancelled}, skipped ${s.skipped}, todo ${s.todo}`;
}

/** A failure's message on one line, its head and tail kept when it is long (a child's output can follow an assertion's message). */
export function oneLine(message: string, max = 1500): string {
  const flat = message.trim().replace(/\s*\n\s*/g, ' ⏎ ');
  if (flat.length <= max) return flat;
  const head = Math.floor(max / 4);
  return `${flat.slice(0, head)} … ${flat.slice(flat.length - (max - head))}`;
}

/** The closing report: each group's counts and wall time, the slowest files, each failed test with its message, and the total over every group. */
export function report(results: readonly GroupResult[], slowest = 15): string[] {
  const lines: string[] = [];
  for (const r of results) {
    const verdict = passed(r) ? 'passed' : `FAILED (exit ${r.code}${r.total === undefined ? ', no summary from node:test' : ''})`;
    const c = r.total === undefined ? 'no counts' : counts(r.total);
    lines.push(`group ${r.group.name}: ${c}; ${r.files.length} file(s), ${r.group.concurrency} at a time, ${secs(r.wallMs)}: ${verdict}`);
  }
  const files = results.flatMap((r) => r.files.map((f) => ({ group: r.group.name, f })));
  if (files.length > 0) {
    lines.push(`slowest files (time each took, side by side with others in its group):`);
    for (const { group, f } of [...files].sort((a, b) => b.f.durationMs - a.f.durationMs).slice(0, slowest))
      lines.push(`  ${secs(f.durationMs).padStart(9)}  ${f.file ?? '?'} (${group})`);
  }
  for (const r of results) for (const f of r.failures) lines.push(`failed (${r.group.name}): ${f.file ?? '?'} › ${f.name}: ${oneLine(f.message)}`);
  const sum = (k: 'tests' | 'passed' | 'failed' | 'cancelled' | 'skipped' | 'todo'): number => results.reduce((n, r) => n + (r.total?.[k] ?? 0), 0);
  const all = results.every(passed);
  lines.push(
    `total over ${results.length} group(s): ${counts({ tests: sum('tests'), passed: sum('passed'), failed: sum('failed'), cancelled: sum('cancelled'), skipped: sum('skipped'), todo: sum('todo') })}; ${secs(results.reduce((n, r) => n + r.wallMs, 0))}: ${all ? 'passed' : 'FAILED'}`,
  );
  return lines;
}
