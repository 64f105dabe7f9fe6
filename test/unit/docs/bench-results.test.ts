// bench-results/ holds what the docs cite (README.md, BENCHMARKS.md, docs/**/*.md) and what code reads
// from it, nothing else: every bench writes a result file there on each run, and a run's files are
// committed only when a page cites them. A page cites a path (`bench-results/<name>`, a folder with a
// trailing slash: all its files) or a run by its stamp, also shortened to its time (`…T14-07-41-503Z`),
// which cites every file of that run (its .json, .md, -log.txt); `A` … `B` cites the runs from A to B.
// Only files git tracks are held to this, so an uncommitted run's output does not fail the test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const DIR = 'bench-results';

/** Files under bench-results/ that a script or test reads (a baseline, a fixture): none today. */
const READ_BY_CODE: readonly string[] = [];

/** Every .md file under `dir`, as paths relative to the root. */
function markdownUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.md'))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

const PAGES = ['README.md', 'BENCHMARKS.md', ...markdownUnder('docs')].sort();
const TEXT = new Map(PAGES.map((p) => [p, readFileSync(join(ROOT, p), 'utf8')]));

/** The files of bench-results/ as git tracks them (the folder as it is, outside a git checkout). */
function trackedFiles(): string[] {
  try {
    return execFileSync('git', ['ls-files', '-z', '--', DIR], { cwd: ROOT, encoding: 'utf8' })
      .split('\0')
      .filter((f) => f !== '' && existsSync(join(ROOT, f)));
  } catch {
    return readdirSync(join(ROOT, DIR), { withFileTypes: true, recursive: true })
      .filter((e) => e.isFile())
      .map((e) => relative(ROOT, join(e.parentPath, e.name)));
  }
}

const FILES = trackedFiles().sort();

/** `bench-results/<name>` as written on a page (a template such as `bench-results/read-<date>.json` is not a path). */
const PATH = /bench-results\/([\w.-]+(?:\/[\w.-]+)*\/?)(?![\w.<-])/g;
/** A run's stamp, `2026-11-25T14-20-18-953Z`, or its time alone (`…T14-20-18-953Z`, `14-20-18-953Z`). */
const STAMP = /(\d{4}-\d{2}-\d{2})?T?(\d{2}-\d{2}-\d{2}-\d{3})Z/g;
const FULL_STAMP = /\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z/;
/** `A` … `B`: the runs from A to B. */
const RANGE = /`[^`\n]*?((?:\d{4}-\d{2}-\d{2})?T?\d{2}-\d{2}-\d{2}-\d{3}Z)[^`\n]*` … `[^`\n]*?((?:\d{4}-\d{2}-\d{2})?T?\d{2}-\d{2}-\d{2}-\d{3}Z)[^`\n]*`/g;

/** The run a file belongs to: the part of its name up to and including its stamp (`read-2026-…Z`). */
function runOf(file: string): string | undefined {
  const name = file.slice(DIR.length + 1);
  const m = FULL_STAMP.exec(name);
  return m === null ? undefined : name.slice(0, m.index + m[0].length);
}

/** The runs a cited stamp names: one, or none if no file has it; more than one if a bare time is ambiguous. */
function runsOf(stamp: string): string[] {
  const m = new RegExp(STAMP.source).exec(stamp);
  const [date, time] = [m?.[1], m?.[2] ?? ''];
  return [...new Set(FILES.map(runOf))].filter((r): r is string => r !== undefined && r.endsWith(`${date ?? ''}T${time}Z`));
}

interface Citations {
  /** Cited paths (relative to the root) that are not there. */
  missing: string[];
  /** Cited stamps no file has, or whose time alone names more than one run. */
  unresolved: string[];
  /** Every file of bench-results/ a page cites. */
  cited: Set<string>;
}

function citations(): Citations {
  const missing: string[] = [];
  const unresolved: string[] = [];
  const cited = new Set<string>();
  const citeRun = (run: string): void => {
    for (const f of FILES) if (runOf(f) === run) cited.add(f);
  };
  for (const [page, text] of TEXT) {
    for (const m of text.matchAll(PATH)) {
      const path = `${DIR}/${(m[1] ?? '').replace(/\.+$/, '')}`;
      if (!existsSync(join(ROOT, path))) missing.push(`${page}: ${path}`);
      else if (path.endsWith('/')) for (const f of FILES.filter((f) => f.startsWith(path))) cited.add(f);
      else cited.add(path);
    }
    for (const m of text.matchAll(STAMP)) {
      const runs = runsOf(m[0]);
      if (runs.length !== 1) unresolved.push(`${page}: ${m[0]} (${runs.length === 0 ? 'no such run' : `runs ${runs.join(', ')}`})`);
      else citeRun(runs[0] ?? '');
    }
    for (const m of text.matchAll(RANGE)) {
      const [from, to] = [runsOf(m[1] ?? '')[0], runsOf(m[2] ?? '')[0]];
      if (from === undefined || to === undefined) continue; // reported above
      const prefix = from.slice(0, from.search(FULL_STAMP));
      for (const run of new Set(FILES.map(runOf))) {
        if (run !== undefined && run.startsWith(prefix) && run >= from && run <= `${prefix}${FULL_STAMP.exec(to)?.[0] ?? ''}`) citeRun(run);
      }
    }
  }
  return { missing, unresolved, cited };
}

void test('every bench-results/ path and run the docs cite is there', () => {
  const { missing, unresolved } = citations();
  assert.deepEqual(missing, []);
  assert.deepEqual(unresolved, []);
});

void test('every file of bench-results/ is cited by the docs or read by code', () => {
  const { cited } = citations();
  for (const f of READ_BY_CODE) cited.add(f);
  assert.ok(FILES.length > 0, 'bench-results/ has files');
  assert.deepEqual(
    FILES.filter((f) => !cited.has(f)),
    [],
    'cite a run in BENCHMARKS.md or git rm its files',
  );
});
