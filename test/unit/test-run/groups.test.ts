// npm test's groups (scripts/lib/test-run/groups.ts): the exclusive list is exactly the integration
// files that reach the shared stack's processes, so a new outage test cannot slip into the group that
// runs side by side; every file lands in one group; the slow files start first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, globSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CONTAINER_SUITE, EXCLUSIVE, SLOW_FIRST, concurrencyFrom, explicitGroup, planGroups, slowFirst } from '../../../scripts/lib/test-run/groups.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const integration = globSync('test/integration/**/*.test.ts', { cwd: ROOT }).sort();
const source = (f: string): string => readFileSync(join(ROOT, f), 'utf8');

void test('the exclusive files are exactly the integration files that import test/support/stack-control.ts', () => {
  const importing = integration.filter((f) => /from '(\.\.\/)+support\/stack-control\.ts'/.test(source(f)));
  assert.deepEqual(
    Object.keys(EXCLUSIVE).sort(),
    importing,
    'a file that kills, freezes or restarts a stack process is listed in EXCLUSIVE (and only such a file)',
  );
  for (const [f, why] of Object.entries(EXCLUSIVE)) assert.ok(why.length > 0, `${f} says what it does to the stack`);
});

void test("no file outside the exclusive group reaches the shared stack's processes another way", () => {
  // stack-control.ts is the one place that holds the stack's pids (requireStackPid), its container
  // control (tsi-ctl) and `scripts/stack.ts up`.
  const other = integration.filter((f) => !Object.hasOwn(EXCLUSIVE, f));
  const helpers = globSync('test/integration/**/*.ts', { cwd: ROOT }).filter((f) => !f.endsWith('.test.ts'));
  for (const f of [...other, ...helpers])
    assert.doesNotMatch(
      source(f),
      /requireStackPid|stackPids?\(|tsi-ctl|scripts\/stack\.ts|support\/stack-control\.ts/,
      `${f} touches the stack's processes: make it exclusive`,
    );
});

void test('the listed files exist; SLOW_FIRST names no exclusive file and none twice', () => {
  for (const f of [...Object.keys(EXCLUSIVE), ...SLOW_FIRST]) assert.ok(existsSync(join(ROOT, f)), `${f} exists`);
  assert.equal(new Set(SLOW_FIRST).size, SLOW_FIRST.length);
  assert.deepEqual(
    SLOW_FIRST.filter((f) => Object.hasOwn(EXCLUSIVE, f)),
    [],
  );
});

void test('the container suite names existing integration files, none that needs the local stack, each with its reason', () => {
  const files = Object.keys(CONTAINER_SUITE);
  assert.ok(files.length > 0);
  for (const f of files) {
    assert.ok(integration.includes(f), `${f} is an integration test file`);
    assert.ok(!f.endsWith('.local.test.ts'), `${f} needs the local stack's ZooKeeper`);
    assert.ok((CONTAINER_SUITE[f] ?? '').length > 0, `${f} says what it checks of the containers`);
  }
  assert.ok(
    files.some((f) => Object.hasOwn(EXCLUSIVE, f)),
    'at least one file restarts a container process through tsi-ctl',
  );
});

void test('every file runs in exactly one group; the exclusive group runs one file at a time, after the integration group', () => {
  const unit = ['test/unit/b.test.ts', 'test/unit/a.test.ts'];
  const groups = planGroups({ unit, integration }, { unit: 2, integration: 3 });
  assert.deepEqual(
    groups.map((g) => [g.name, g.concurrency]),
    [
      ['unit', 2],
      ['integration', 3],
      ['exclusive', 1],
    ],
  );
  const all = groups.flatMap((g) => g.files);
  assert.deepEqual([...all].sort(), [...unit, ...integration].sort(), 'each file once');
  assert.deepEqual(groups[2]?.files, Object.keys(EXCLUSIVE).sort());
  assert.deepEqual(groups[0]?.files, ['test/unit/a.test.ts', 'test/unit/b.test.ts']);
  // the container suite: no unit group; a group with no file is left out
  assert.deepEqual(
    planGroups({ unit: [], integration: ['test/integration/x/a.test.ts'] }, { unit: 2, integration: 2 }).map((g) => g.name),
    ['integration'],
  );
  assert.deepEqual(explicitGroup(['test/unit/**/*.test.ts']), {
    name: 'files',
    files: ['test/unit/**/*.test.ts'],
    concurrency: 1,
    about: 'the files named on the command line, one at a time',
  });
});

void test('slowFirst: the listed slow files first in their order, then the rest by name', () => {
  const rest = ['test/integration/z/z.test.ts', 'test/integration/a/a.test.ts'];
  assert.deepEqual(slowFirst([...rest, ...[...SLOW_FIRST].reverse()]), [...SLOW_FIRST, 'test/integration/a/a.test.ts', 'test/integration/z/z.test.ts']);
});

void test('concurrency from the environment: a whole number ≥ 1, else a named error', () => {
  assert.equal(concurrencyFrom(undefined, 2, 'X'), 2);
  assert.equal(concurrencyFrom('', 2, 'X'), 2);
  assert.equal(concurrencyFrom('3', 2, 'X'), 3);
  for (const bad of ['0', '-1', '1.5', 'two']) assert.throws(() => concurrencyFrom(bad, 2, 'TSI_TEST_CONCURRENCY'), /TSI_TEST_CONCURRENCY=/);
});
