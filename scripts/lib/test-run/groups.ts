// How `npm test` splits its test files into groups, each one `node --test` run (docs/DEV-CONVENTIONS.md,
// "How npm test runs the files"):
//   unit        test/unit: no server, files side by side;
//   integration test/integration files that touch only what they create (tables, topics, consumer
//               groups, ports, their own child processes and extra gateways or brokers): side by side
//               against the one shared stack;
//   exclusive   the files that kill, freeze or restart a process OF THE SHARED STACK (through
//               test/support/stack-control.ts): every test running meanwhile would see the outage, so
//               these run one at a time, after the integration group, with nothing else on the stack.
// Pure: the runner (scripts/test.ts) globs the files, runs the groups and adds up their summaries.

/** The files that disturb the shared stack, and what each does to it. test/unit/test-run/groups.test.ts holds this list against the imports of stack-control.ts. */
export const EXCLUSIVE: Readonly<Record<string, string>> = {
  'test/integration/service/broker-outage.test.ts': "kills the stack's Kafka broker (SIGKILL) and starts it again",
  'test/integration/service/hbase-outage.test.ts': "kills the stack's HBase (master, region server and ZooKeeper in one JVM) and starts it again",
  'test/integration/service/queue-bound.test.ts': "freezes the stack's REST gateway (SIGSTOP) for 60 s",
  'test/integration/service/rest-outage.test.ts': "kills the stack's REST gateway and starts it again",
  'test/integration/spread/hbase-kill.test.ts': "kills the stack's HBase twice and starts it again",
};

/**
 * The container suite (`npm run test:docker`, CI's second suite): the integration files whose subject
 * is what the container stack does differently, each with what that is. The whole integration suite
 * runs against the local stack in `npm test` (CI's first suite), on the same HBase and Kafka versions
 * and the same hbase-site.xml; running all of it again against containers doubled CI's time (2,719 s)
 * and took it past its limit. test/unit/test-run/groups.test.ts holds the list to existing files.
 */
export const CONTAINER_SUITE: Readonly<Record<string, string>> = {
  'test/integration/admin/java-admin.test.ts': 'table admin through `docker exec -i <c> table-admin`, one call per process and a session',
  'test/integration/e2e/first-slice.test.ts': "Kafka → service → HBase → reads across the containers' published ports (Kafka's advertised listener)",
  'test/integration/hbase/client.test.ts': "the REST client's reads and writes against the image's gateway",
  'test/integration/hbase/scan.test.ts': "scanners and their filter bodies against the image's gateway (its JSON model: the scanner probe)",
  'test/integration/reads-v1/http-cli.test.ts': 'the read API and CLI against the container stack',
  'test/integration/service/broker-outage.test.ts': 'the broker killed and restarted inside its container (`tsi-ctl`), the advertised port kept',
  'test/integration/service/hbase-outage.test.ts': 'HBase killed and restarted inside its container (`tsi-ctl`), the gateway left up',
  'test/integration/service/rest-outage.test.ts': 'the gateway killed and restarted inside its container (`tsi-ctl`, the scanner probe on restore)',
};

/**
 * The slowest integration files, slowest first (measured: docs/DEV-CONVENTIONS.md). The integration
 * group starts them first, so that no long file is left to start last and run on alone at the end.
 * Only an order: a file missing from here still runs (after these, in name order).
 */
export const SLOW_FIRST: readonly string[] = [
  // seconds each took in a whole run, three at a time (2026-11-29 11:17–11:36, 2 cores, admin sessions)
  'test/integration/service/exit-codes.test.ts', // 178
  'test/integration/rollup/job.test.ts', // 177
  'test/integration/series/tail-live.test.ts', // 162
  'test/integration/rollup/crash-backfill.test.ts', // 144
  'test/integration/rollup/ownership.test.ts', // 110
  'test/integration/series/side-by-side.local.test.ts', // 105
  'test/integration/service/secrets-never-printed.test.ts', // 103
  'test/integration/service/scale-out.test.ts', // 98
  'test/integration/admin/doctor.test.ts', // 96
  'test/integration/reads-v1/awkward-ids.test.ts', // 91
];

export type GroupName = 'unit' | 'integration' | 'exclusive' | 'files';

export interface TestGroup {
  readonly name: GroupName;
  /** files (or globs, for `files`) in the order node:test should start them */
  readonly files: readonly string[];
  /** node:test's --test-concurrency: files running at once */
  readonly concurrency: number;
  /** what the group is, for the log */
  readonly about: string;
}

export interface GroupConcurrency {
  readonly unit: number;
  readonly integration: number;
}

export function isExclusive(file: string): boolean {
  return Object.hasOwn(EXCLUSIVE, file);
}

/** SLOW_FIRST's files that are among `files`, in its order, then the others by name. */
export function slowFirst(files: readonly string[]): string[] {
  const present = new Set(files);
  const first = SLOW_FIRST.filter((f) => present.has(f));
  const listed = new Set(first);
  return [...first, ...files.filter((f) => !listed.has(f)).sort()];
}

/** The groups of a whole run, in the order they run; empty groups left out. `unit` is empty for the container suite. */
export function planGroups(files: { readonly unit: readonly string[]; readonly integration: readonly string[] }, c: GroupConcurrency): TestGroup[] {
  const groups: TestGroup[] = [
    { name: 'unit', files: [...files.unit].sort(), concurrency: c.unit, about: 'test/unit, no server' },
    {
      name: 'integration',
      files: slowFirst(files.integration.filter((f) => !isExclusive(f))),
      concurrency: c.integration,
      about: 'integration files on their own tables, topics and processes, side by side on the stack',
    },
    {
      name: 'exclusive',
      files: files.integration.filter(isExclusive).sort(),
      concurrency: 1,
      about: "integration files that kill, freeze or restart the shared stack's processes, one at a time",
    },
  ];
  return groups.filter((g) => g.files.length > 0);
}

/** `npm test -- <files or globs>`: one run of exactly those, one file at a time, as given. */
export function explicitGroup(files: readonly string[]): TestGroup {
  return { name: 'files', files, concurrency: 1, about: 'the files named on the command line, one at a time' };
}

/** A concurrency from the environment (e.g. TSI_TEST_CONCURRENCY=3), or the default. */
export function concurrencyFrom(value: string | undefined, fallback: number, what: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${what}=${value}: expected a whole number ≥ 1`);
  return n;
}
