// Shared by the index tool integration tests (not a test file itself): run `tsingest index …` as a
// child process against a harness's tables, ingest events through the real service, read the index.
import { spawn } from 'node:child_process';
import { encodeIndexKey, type IndexSaltMode } from '../../../src/keys/index.ts';
import { uniqueName } from '../../support/env.ts';
import {
  NODE_BIN,
  REPO_ROOT,
  produceEvents,
  retryingRest,
  startInProcess,
  waitForCommittedAtEnd,
  waitForEvents,
  type Harness,
  type TestEvent,
} from '../../support/service-harness.ts';

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `node src/cli.ts index <args> --set <base sets + extra>`; resolves when it exits. */
export function indexCli(h: Harness, args: readonly string[], extraSets: readonly string[] = []): Promise<CliResult> {
  return tsingestCli(h, ['index', ...args], extraSets);
}

/** `node src/cli.ts <argv> --set <base sets + extra>`; resolves when it exits. */
export function tsingestCli(h: Harness, argv: readonly string[], extraSets: readonly string[] = []): Promise<CliResult> {
  const sets = [...h.baseSets, ...extraSets].flatMap((s) => ['--set', s]);
  const child = spawn(NODE_BIN, ['--disable-warning=TimeoutNegativeWarning', 'src/cli.ts', ...argv, ...sets], {
    cwd: REPO_ROOT,
    env: { ...process.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (b: Buffer) => {
    stdout += b.toString();
  });
  child.stderr.on('data', (b: Buffer) => {
    stderr += b.toString();
  });
  h.defer(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return new Promise((resolve) => {
    child.once('close', (code) => {
      resolve({ code, stdout, stderr });
    });
  });
}

/** Parses the one JSON line a `--json` run prints; fails with the run's output otherwise. */
export function jsonOf(r: CliResult): Record<string, unknown> {
  try {
    return JSON.parse(r.stdout) as Record<string, unknown>;
  } catch {
    throw new Error(`not JSON (exit ${String(r.code)}):\n${r.stdout}\n${r.stderr}`);
  }
}

/** Produces the events and runs the real service until all are written and committed. */
export async function ingestThroughService(h: Harness, events: readonly TestEvent[]): Promise<void> {
  await produceEvents(h, events);
  const group = uniqueName('it-ix-g');
  const svc = await startInProcess(h, [`kafka.groupId=${group}`, 'http.port=0']);
  await waitForEvents(svc, events.length);
  await waitForCommittedAtEnd(h, group);
  await svc.stop('ingested');
  await svc.finished;
}

/** Every index row as `key hex → sorted qualifiers`, optionally only keys of one tag. */
export function indexSnapshot(h: Harness, tag?: string): Promise<Map<string, string[]>> {
  return retryingRest(`scan ${h.names.index}`, async () => {
    const out = new Map<string, string[]>();
    const marker = tag === undefined ? null : Buffer.from(`${tag}\u0000`, 'utf8');
    for await (const row of h.rest.scan(h.names.index, { batch: 5000 })) {
      if (marker !== null && row.row.indexOf(marker) !== 1) continue;
      out.set(row.row.toString('hex'), row.cells.map((c) => c.qualifier.toString('utf8')).sort());
    }
    return new Map([...out.entries()].sort(([a], [b]) => a.localeCompare(b)));
  });
}

/** The index rows the events call for (computed from the events alone). */
export function expectedIndex(events: readonly TestEvent[], tags: readonly string[], buckets: number, saltMode: IndexSaltMode): Map<string, string[]> {
  const rows = new Map<string, Set<string>>();
  for (const e of events) {
    for (const tag of tags) {
      const value = e.tags?.[tag];
      if (value === undefined) continue;
      const key = encodeIndexKey({ indexName: tag, value, ts: e.ts, id: e.id }, buckets, saltMode).toString('hex');
      rows.set(key, (rows.get(key) ?? new Set<string>()).add(e.metric));
    }
  }
  return new Map([...rows.entries()].map(([k, v]) => [k, [...v].sort()] as [string, string[]]).sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * The index family's NEW_VERSION_BEHAVIOR as the REST gateway reports it. `tables apply` sets it:
 * without it an HBase delete marker hides later puts with the same cell timestamp until a major
 * compaction, so an index row deleted by hand could not be written back by a rebuild.
 */
export async function newVersionBehavior(h: Harness, family = 'd'): Promise<string | undefined> {
  const schema = await h.rest.getSchema(h.names.index);
  const fam = schema.families.find((f) => f.name === family);
  if (fam === undefined) throw new Error(`${h.names.index} has no family ${family}`);
  return fam.attributes['NEW_VERSION_BEHAVIOR'];
}
