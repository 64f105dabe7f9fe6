// Backfilling a tag added to index.tags after ingest, on printable data keys and a value-salted
// index: an interrupted rebuild (checkpoint file) is resumed by `tsingest index rebuild` to the same
// index the ingest would have written, verify then passes for both tags, and a rerun on the finished
// checkpoint says so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REBUILD_CHECKPOINT, rebuildCheckpointFile } from '../../../src/index-tools/index-checkpoint.ts';
import { rebuildIndex } from '../../../src/index-tools/rebuild.ts';
import { keyspaceOf, tablesOf } from '../../../src/service/keyspace.ts';
import { settingsOf } from '../../../src/index-tools/index-settings.ts';
import { decodeCheckpoint } from '../../../src/toolkit/checkpoint-store.ts';
import { countIndexed, createHarness, makeEvents } from '../../support/service-harness.ts';
import { expectedIndex, indexCli, indexSnapshot, ingestThroughService, jsonOf } from './helpers.ts';

const BOTH = 'index.tags=["site","rack"]';

void test('rebuild --tag backfills a newly indexed tag; an interrupted run resumes from its checkpoint', async (t) => {
  const h = await createHarness(t, { prefix: 'ixb', sets: ['keys.format=printable', 'index.saltMode=value'] });
  const dir = await mkdtemp(join(tmpdir(), 'tsi-ix-'));
  h.defer(() => rm(dir, { recursive: true, force: true }));
  const checkpoint = join(dir, 'rack.checkpoint.json');
  const events = makeEvents(200); // every other event carries site and rack; only site is indexed at ingest
  await ingestThroughService(h, events);
  const rackRows = expectedIndex(events, ['rack'], 4, 'value');
  assert.equal(rackRows.size, events.filter((e) => e.tags?.['rack'] !== undefined).length);

  const before = await indexCli(h, ['verify', '--json'], [BOTH]);
  assert.equal(before.code, 1, before.stdout + before.stderr);
  assert.deepEqual(jsonOf(before)['counts'], {
    dataRowsChecked: events.length,
    indexRowsChecked: countIndexed(events),
    dangling: 0,
    missing: rackRows.size,
    malformed: 0,
  });

  // A first run, stopped after three chunks of 10 rows (as SIGINT would stop the CLI).
  const cfg = h.config([BOTH, 'kafka.groupId=unused']);
  const ac = new AbortController();
  let chunks = 0;
  const first = await rebuildIndex(h.rest, settingsOf(cfg, keyspaceOf(cfg), tablesOf(cfg), { tag: 'rack' }), {
    chunkSize: 10,
    concurrency: 1,
    sampleSize: 5,
    graceMs: cfg.query.danglingGraceMs,
    now: Date.now,
    checkpoint: rebuildCheckpointFile(checkpoint),
    signal: ac.signal,
    throttle: {
      take: (rows) => {
        if (rows > 0 && ++chunks === 3) ac.abort();
        return Promise.resolve();
      },
    },
  });
  assert.equal(first.status, 'interrupted');
  assert.ok(first.found.dataRowsChecked > 0 && first.found.dataRowsChecked <= 30);
  const saved = decodeCheckpoint(await readFile(checkpoint, 'utf8'), checkpoint, REBUILD_CHECKPOINT);
  assert.equal(saved.finishedAt, null);
  assert.ok(
    Object.values(saved.units).some((u) => u.after !== null),
    'positions recorded',
  );
  const partial = (await indexSnapshot(h, 'rack')).size;
  assert.equal(partial, first.indexRowsWritten);
  assert.ok(partial < rackRows.size, 'only part of the tag was backfilled');

  const resumed = await indexCli(h, ['rebuild', '--tag', 'rack', '--checkpoint', checkpoint, '--rate', '100', '--chunk', '25', '--json'], [BOTH]);
  assert.equal(resumed.code, 0, resumed.stdout + resumed.stderr);
  const r = jsonOf(resumed);
  assert.equal(r['status'], 'finished');
  const found = r['found'] as Record<string, number>;
  assert.equal(first.found.dataRowsChecked + (found['dataRowsChecked'] ?? 0), events.length, 'the resumed run scanned only the rest of the data');
  assert.equal(first.indexRowsWritten + (r['indexRowsWritten'] as number), rackRows.size);
  assert.equal(r['danglingDeleted'], 0);
  assert.doesNotMatch(resumed.stderr, /lacks NEW_VERSION_BEHAVIOR=true/, 'tables apply sets NEW_VERSION_BEHAVIOR on the index family: no delete-marker note');

  assert.deepEqual(await indexSnapshot(h, 'rack'), rackRows, 'the resumed backfill wrote exactly the rows ingest would have');
  const after = await indexCli(h, ['verify', '--json'], [BOTH]);
  assert.equal(after.code, 0, after.stdout + after.stderr);
  assert.deepEqual(jsonOf(after)['counts'], {
    dataRowsChecked: events.length,
    indexRowsChecked: countIndexed(events) + rackRows.size,
    dangling: 0,
    missing: 0,
    malformed: 0,
  });

  const done = await indexCli(h, ['rebuild', '--tag', 'rack', '--checkpoint', checkpoint], [BOTH]);
  assert.equal(done.code, 0, done.stdout + done.stderr);
  assert.match(done.stdout, /already finished according to checkpoint .*nothing to do/);
  const other = await indexCli(h, ['rebuild', '--checkpoint', checkpoint], [BOTH]);
  assert.equal(other.code, 1);
  assert.match(other.stderr, /belongs to another run \(tags is \["rack"\] in the checkpoint but \["site","rack"\] now\)/);
});
