// `tsingest index verify|rebuild` as child processes against tables the real service filled from
// Kafka: consistent → inject one dangling and one missing index row → verify finds exactly those →
// rebuild repairs both → verify passes → a second rebuild changes nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { column } from '../../../src/hbase/index.ts';
import { encodeIndexKey } from '../../../src/keys/index.ts';
import { countIndexed, createHarness, makeEvents } from '../../support/service-harness.ts';
import { expectedIndex, newVersionBehavior, indexCli, indexSnapshot, ingestThroughService, jsonOf } from './helpers.ts';

void test('verify finds an injected dangling and missing index row; rebuild repairs both, idempotently', async (t) => {
  const h = await createHarness(t, { prefix: 'ixv' });
  assert.equal(await newVersionBehavior(h), 'true', 'tables apply sets NEW_VERSION_BEHAVIOR on the index family');
  const events = makeEvents(200);
  await ingestThroughService(h, events);
  const indexed = countIndexed(events);

  const clean = await indexCli(h, ['verify', '--json']);
  assert.equal(clean.code, 0, clean.stdout + clean.stderr);
  assert.deepEqual(jsonOf(clean)['counts'], { dataRowsChecked: events.length, indexRowsChecked: indexed, dangling: 0, missing: 0, malformed: 0 });
  assert.deepEqual(await indexSnapshot(h), expectedIndex(events, ['site'], 4, 'entry'), 'the service wrote the index the events call for');

  // Dangling: an index row for an event that does not exist. Missing: one index row deleted.
  const ghost = { indexName: 'site', value: 's-ghost', ts: (events[0]?.ts ?? 0) - 60_000, id: 'ghost-1' };
  const ghostKey = encodeIndexKey(ghost, 4);
  await h.rest.put(h.names.index, [{ row: ghostKey, cells: [{ column: column('d', 'temp'), value: Buffer.alloc(0), timestamp: ghost.ts }] }]);
  const victim = events.filter((e) => e.tags !== undefined)[7];
  assert.ok(victim?.tags !== undefined);
  const lost = { indexName: 'site', value: victim.tags['site'] ?? '', ts: victim.ts, id: victim.id };
  await h.rest.deleteRow(h.names.index, encodeIndexKey(lost, 4));

  const broken = await indexCli(h, ['verify', '--json']);
  assert.equal(broken.code, 1, broken.stdout + broken.stderr);
  const b = jsonOf(broken);
  assert.equal(b['consistent'], false);
  assert.deepEqual(b['counts'], { dataRowsChecked: events.length, indexRowsChecked: indexed, dangling: 1, missing: 1, malformed: 0 });
  const iso = (ts: number): string => new Date(ts).toISOString();
  assert.deepEqual(b['samples'], {
    dangling: [
      {
        tag: 'site',
        value: 's-ghost',
        id: 'ghost-1',
        ts: ghost.ts,
        iso: iso(ghost.ts),
        reason: 'no_data_row',
        metrics: ['temp'],
        key: ghostKey.toString('hex'),
      },
    ],
    missing: [
      {
        tag: 'site',
        value: lost.value,
        id: lost.id,
        ts: lost.ts,
        iso: iso(lost.ts),
        reason: 'no_index_row',
        metrics: [victim.metric],
        key: encodeIndexKey(lost, 4).toString('hex'),
      },
    ],
    malformed: [],
  });

  const text = await indexCli(h, ['verify']);
  assert.equal(text.code, 1);
  assert.match(text.stdout, /^ {2}dangling +1 /m);
  assert.match(text.stdout, /^ {2}missing +1 /m);
  assert.ok(text.stdout.includes(`  site=s-ghost id=ghost-1 ts=${iso(ghost.ts)}  no_data_row  [temp]`), text.stdout);
  assert.ok(text.stdout.includes(`  site=${lost.value} id=${lost.id} ts=${iso(lost.ts)}  no_index_row  [${victim.metric}]`), text.stdout);
  assert.match(text.stdout, /✗ inconsistent: 1 dangling, 1 missing/);

  const rebuilt = await indexCli(h, ['rebuild', '--json']);
  assert.equal(rebuilt.code, 0, rebuilt.stdout + rebuilt.stderr);
  const r = jsonOf(rebuilt);
  assert.deepEqual([r['status'], r['indexRowsWritten'], r['danglingDeleted'], r['danglingKept']], ['finished', 1, 1, 0]);
  assert.match(rebuilt.stderr, /index rebuild: 100% /, 'a progress line on stderr (not a TTY)');
  assert.doesNotMatch(rebuilt.stderr, /NEW_VERSION_BEHAVIOR/, 'no delete-marker note: the index family has it');

  const after = await indexCli(h, ['verify']);
  assert.equal(after.code, 0, after.stdout + after.stderr);
  assert.match(after.stdout, /✓ consistent/);
  const repaired = await indexSnapshot(h);
  assert.deepEqual(repaired, expectedIndex(events, ['site'], 4, 'entry'));

  const again = await indexCli(h, ['rebuild', '--json']);
  assert.equal(again.code, 0, again.stdout + again.stderr);
  const a = jsonOf(again);
  assert.deepEqual([a['indexRowsWritten'], a['danglingDeleted']], [0, 0]);
  assert.deepEqual(a['found'], { dataRowsChecked: events.length, indexRowsChecked: indexed, dangling: 0, missing: 0, malformed: 0 });
  assert.deepEqual(await indexSnapshot(h), repaired, 'a second rebuild changes nothing');

  const usage = await indexCli(h, ['verify', '--tag', 'zone']);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /--tag zone is not one of index\.tags \(\["site"\]\)/);
  const badTime = await indexCli(h, ['verify', '--from', 'yesterday']);
  assert.equal(badTime.code, 2);
  assert.match(badTime.stderr, /--from must be epoch milliseconds or ISO-8601/);
});
