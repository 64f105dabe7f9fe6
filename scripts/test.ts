// npm test: typecheck, lint, the formatter's check (prettier), then every unit and integration test against a real Kafka and
// HBase: the local Docker-free stack unless another is named (scripts/lib/stack/test-stack.ts). The tests run in groups
// (scripts/lib/test-run/groups.ts): unit files side by side, integration files side by side on the one stack, then the
// files that kill, freeze or restart the stack's own processes one at a time; the run ends with every group's counts and
// their total, and fails if any group failed.
// npm run test:docker (`--docker`): the integration files about what containers change (CONTAINER_SUITE in groups.ts)
// against containers of the project's images, in the same groups.
// npm test -- <files or globs>: exactly those, in one node:test run, one file at a time.
// Fails — never skips — when the stack cannot be brought up.
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { globSync } from 'node:fs';
import { acquireTestStack } from './lib/stack/test-stack.ts';
import { ensureKerberosClient, ensureTools } from './lib/stack/ensure-tools.ts';
import { projectRoot, stackEnv } from './lib/stack/config.ts';
import { CONTAINER_SUITE, concurrencyFrom, explicitGroup, planGroups, type TestGroup } from './lib/test-run/groups.ts';
import { passed, report, runGroup, type GroupResult } from './lib/test-run/run-group.ts';
import { markStackLogs, stackLogDigest } from './lib/test-run/stack-logs.ts';

const log = (m: string): void => {
  process.stdout.write(`[test] ${m}\n`);
};

function step(name: string, cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  log(`${name}: ${[cmd, ...args].join(' ')}`);
  return new Promise((resolvePromise) => {
    const child = spawn(cmd, args, { cwd: projectRoot, stdio: 'inherit', env });
    child.on('close', (code) => {
      resolvePromise(code ?? 1);
    });
    child.on('error', () => {
      resolvePromise(1);
    });
  });
}

const glob = (pattern: string): string[] => globSync(pattern, { cwd: projectRoot }).sort();

// The container suite runs the files of CONTAINER_SUITE (groups.ts): those whose subject is what the
// container stack does differently. The whole integration suite runs in `npm test` (CI's first suite).
function containerSuite(): string[] {
  const all = new Set(glob('test/integration/**/*.test.ts'));
  const files = Object.keys(CONTAINER_SUITE).filter((f) => all.has(f));
  log(`container suite: ${files.length} of ${all.size} integration files (the whole suite runs in npm test): ${files.join(', ')}`);
  return files;
}

/** The groups of this run: the named files as given, or the whole suite (the container suite: integration files only). */
function groupsOf(only: readonly string[], docker: boolean): TestGroup[] {
  if (only.length > 0) return [explicitGroup(only)];
  const env = process.env;
  const concurrency = {
    unit: concurrencyFrom(env['TSI_TEST_UNIT_CONCURRENCY'], Math.max(2, availableParallelism()), 'TSI_TEST_UNIT_CONCURRENCY'),
    integration: concurrencyFrom(env['TSI_TEST_CONCURRENCY'], 3, 'TSI_TEST_CONCURRENCY'),
  };
  return planGroups(
    { unit: docker ? [] : glob('test/unit/**/*.test.ts'), integration: docker ? containerSuite() : glob('test/integration/**/*.test.ts') },
    concurrency,
  );
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const docker = args.includes('--docker');
  const only = args.filter((a) => a !== '--docker'); // optional file globs, e.g. npm test -- "test/unit/**/*.test.ts"
  if (only.length === 0 && !docker) {
    if ((await step('typecheck', process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json', '--noEmit'])) !== 0) return 1;
    if ((await step('lint', process.execPath, ['node_modules/eslint/bin/eslint.js', '--max-warnings=0', '.'])) !== 0) return 1;
    if ((await step('format', process.execPath, ['node_modules/prettier/bin/prettier.cjs', '--check', '.'])) !== 0) return 1;
  }
  const groups = groupsOf(only, docker);
  ensureTools(log); // promtool + prometheus (deploy/prometheus tests, dashboard test), nginx, a KDC, …
  ensureKerberosClient(log); // the optional `kerberos` package, when npm ci had no libkrb5-dev to build it
  const t0 = Date.now();
  const stack = await acquireTestStack(log, docker ? 'docker' : undefined);
  log(`stack (${stack.kind}) ready in ${((Date.now() - t0) / 1000).toFixed(1)}s`);
  try {
    const env = {
      ...process.env,
      ...stackEnv(stack),
      ...stack.env,
    };
    const results: GroupResult[] = [];
    for (const group of groups) {
      const marks = stack.kind === 'local' ? markStackLogs() : undefined;
      const r = await runGroup(group, { cwd: projectRoot, env, log });
      results.push(r);
      if (passed(r)) continue;
      log(`group ${group.name} FAILED (exit ${r.code}); the other groups still run`);
      if (marks !== undefined) for (const line of stackLogDigest(marks)) log(line);
    }
    for (const line of report(results)) log(line);
    return results.every(passed) ? 0 : 1;
  } finally {
    await stack.release();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`[test] error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
