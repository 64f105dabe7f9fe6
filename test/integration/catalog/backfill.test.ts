// `tsingest catalog backfill` on a table loaded by the service with catalog.enabled=false: the same
// series rows ingest would have written; a rerun (fresh) puts the same rows and changes nothing; a run
// stopped after its first page and resumed from its checkpoint ends with the same catalog; the CLI's
// output and exit code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { catalogCheckpointFile } from '../../../src/catalog/backfill-checkpoint.ts';
import { runCatalogBackfill, type CatalogBackfillSettings } from '../../../src/catalog/backfill.ts';
import { keyspaceOf } from '../../../src/service/keyspace.ts';
import { uniqueName } from '../../support/env.ts';
import {
  NODE_BIN,
  REPO_ROOT,
  countRows,
  createHarness,
  produceEvents,
  startInProcess,
  waitForCommittedAtEnd,
  waitForEvents,
  type Harness,
} from '../../support/service-harness.ts';
import { catalogEvents, catalogLines, seriesOfEvents } from './helpers.ts';

function cli(h: Harness, args: readonly string[]): Promise<{ code: number | null; out: string }> {
  const child = spawn(NODE_BIN, ['src/cli.ts', 'catalog', ...args, ...h.baseSets.flatMap((s) => ['--set', s])], {
    cwd: REPO_ROOT,
    env: { ...process.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (b: Buffer) => {
    out += b.toString();
  });
  child.stderr.on('data', (b: Buffer) => {
    out += b.toString();
  });
  return new Promise((res) => {
    child.once('exit', (code) => {
      res({ code, out });
    });
  });
}

async function clearCatalog(h: Harness): Promise<void> {
  for await (const row of h.rest.scan(h.names.meta, { startRow: Buffer.from('series/'), stopRow: Buffer.from('series0') }))
    await h.rest.deleteRow(h.names.meta, row.row);
}

void test('catalog backfill = the rows ingest writes; reruns are idempotent; a resumed run ends the same', async (t) => {
  const h = await createHarness(t, { prefix: 'catb' });
  const events = catalogEvents(400);
  const want = seriesOfEvents(events);
  const groupId = uniqueName('it-catb');
  const svc = await startInProcess(h, [`kafka.groupId=${groupId}`, 'http.port=0', 'catalog.enabled=false']);
  await produceEvents(h, events);
  await waitForEvents(svc, events.length);
  await waitForCommittedAtEnd(h, groupId);
  await svc.stop('loaded');
  assert.deepEqual(await catalogLines(h), [], 'catalog.enabled=false wrote no catalog row');

  // The CLI, twice: the second run writes the same rows again (its own cache is empty) and the
  // catalog is unchanged.
  const first = await cli(h, ['backfill']);
  assert.equal(first.code, 0, first.out);
  assert.match(first.out, new RegExp(`catalog backfill finished: rows scanned \\d+, series rows written ${want.length}, rows skipped 0`));
  assert.deepEqual(await catalogLines(h), want);
  const metaRows = await countRows(h, h.names.meta);
  const second = await cli(h, ['backfill']);
  assert.equal(second.code, 0, second.out);
  assert.deepEqual(await catalogLines(h), want, 'a rerun changes nothing');
  assert.equal(await countRows(h, h.names.meta), metaRows);

  // Stopped after its first page, resumed from the checkpoint: the same catalog.
  await clearCatalog(h);
  assert.deepEqual(await catalogLines(h), []);
  const dir = await mkdtemp(join(tmpdir(), 'catb-'));
  h.defer(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'cp.json');
  const cfg = h.config(['kafka.groupId=unused']);
  const settings: CatalogBackfillSettings = {
    keyspace: keyspaceOf(cfg),
    dataTable: h.names.data,
    dataFamily: 'd',
    metaTable: h.names.meta,
    metaFamily: 'd',
    pageRows: 25,
  };
  const ac = new AbortController();
  const stopped = await runCatalogBackfill({
    port: h.rest,
    settings,
    checkpoint: catalogCheckpointFile(file),
    signal: ac.signal,
    onProgress: () => {
      ac.abort();
    },
  });
  assert.equal(stopped.status, 'aborted');
  assert.equal(stopped.rowsScanned, 25);
  const partial = await catalogLines(h);
  assert.ok(partial.length > 0 && partial.length < want.length, `part of the catalog (${partial.length} of ${want.length})`);
  const resumed = await runCatalogBackfill({ port: h.rest, settings, checkpoint: catalogCheckpointFile(file) });
  assert.equal(resumed.status, 'finished');
  assert.equal(resumed.resumed, true);
  assert.equal(resumed.rowsScanned, await countRows(h, h.names.data), 'every data row scanned once over both runs');
  assert.deepEqual(await catalogLines(h), want);
  const again = await runCatalogBackfill({ port: h.rest, settings, checkpoint: catalogCheckpointFile(file) });
  assert.equal(again.status, 'already_finished');
});
