import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { idWindowRows } from '../../../src/rollup/backfill-plan.ts';
import { runBackfill } from '../../../src/rollup/backfill.ts';
import { backfillCheckpointFile, type Checkpoint } from '../../../src/rollup/rollup-checkpoint.ts';
import { RollupJob } from '../../../src/rollup/job.ts';
import { wholeWindows } from '../../../src/rollup/plan.ts';
import { decodeSummaryPack } from '../../../src/rollup/summary-pack.ts';
import { WindowContent } from '../../../src/rollup/window-content.ts';
import { parseWindow } from '../../../src/rollup/windows.ts';
import { CheckpointError, memoryCheckpointStore } from '../../../src/toolkit/checkpoint-store.ts';
import { testKeyspace } from '../../support/keyspace.ts';
import { blocksOfRows, brutePoints, bruteSummaries, sorted, summariesOfRows, type Ev } from './brute.ts';
import { FakeHBase } from '../../support/fake-hbase.ts';
import { B, DAY0, HOUR, markEvents, randomEvents, readMetrics, settings, silentLog, writeEvents } from './job-fixture.ts';

const D = 24 * HOUR;

void test('wholeWindows widens outward to the coarsest size and names a bad range', () => {
  const day = parseWindow('1d');
  assert.deepEqual(wholeWindows(DAY0 + 5, DAY0 + D + 1, day), { from: DAY0, to: DAY0 + 2 * D });
  assert.deepEqual(wholeWindows(DAY0, DAY0 + D, day), { from: DAY0, to: DAY0 + D }, 'already whole');
  assert.throws(() => wholeWindows(DAY0, DAY0, day), /--from .* must be before --to/);
});

void test('a bucket range covers exactly one bucket; bucketRangeAfter resumes after an id', () => {
  const inR = (k: Buffer, r: { startRow: Buffer; stopRow: Buffer }): boolean =>
    Buffer.compare(k, r.startRow) >= 0 && (r.stopRow.length === 0 || Buffer.compare(k, r.stopRow) < 0);
  for (const format of ['binary', 'printable'] as const) {
    const ks = testKeyspace(B, format);
    for (const id of ['a', 'dev-1', 'dev-10', '设备']) {
      const key = ks.dataKey(id, 5);
      const salt = ks.dataBucket(key);
      for (let b = 0; b < B; b++) assert.equal(inR(key, ks.bucketRange(b)), b === salt, `${format} ${id} bucket ${b}`);
      assert.equal(inR(key, ks.bucketRangeAfter(salt, id)), false, 'after its own id');
    }
  }
  assert.equal(testKeyspace(256).bucketRange(255).stopRow.length, 0, 'the last bucket of 256 runs to the end');
});

void test('idWindowRows builds every size in memory, merging newest window first, with blocks and packs', () => {
  const s = settings(['1m', '1h']);
  const ev = [1, 2, 3].map((i) => ({ id: 'x', ts: DAY0 + i * 60_000 + i, metric: 'm', value: i / 4 }));
  const fine = new Map<number, WindowContent>();
  for (const e of [...ev].reverse()) {
    const c = new WindowContent(s.blocks);
    c.addPoint(e.metric, e.ts, e.value);
    fine.set(e.ts - (e.ts % 60_000), c);
  }
  const { rows, counts } = idWindowRows('x', fine, s, 42);
  assert.deepEqual(counts, [3, 1]);
  assert.equal(rows.length, 4);
  assert.ok(rows.every((r) => r.cells.every((c) => c.timestamp === 42)));
  const columns = rows.map((r) => r.cells.map((c) => c.column.toString('latin1')).join());
  assert.deepEqual(
    columns,
    ['r1m:m,p:m', 'r1m:m,p:m', 'r1m:m,p:m', 'r1h:m,r1h:\u0000sm,p:m'],
    'each size in its own family, blocks in p, the pack in the coarser row',
  );
  const stored = rows.map((r) => ({
    row: r.row,
    cells: r.cells.map((c) => ({
      family: c.column.subarray(0, c.column.indexOf(0x3a)),
      qualifier: c.column.subarray(c.column.indexOf(0x3a) + 1),
      value: c.value,
    })),
  }));
  assert.deepEqual(sorted(summariesOfRows(stored)), sorted(bruteSummaries(ev, [60, 3600])));
  assert.deepEqual([...blocksOfRows(stored)].sort(), [...brutePoints(ev, [60, 3600])].sort());
  const hour = rows[3];
  const pack = hour?.cells[1];
  assert.ok(hour !== undefined && pack !== undefined);
  assert.deepEqual(
    decodeSummaryPack(pack.value, DAY0, 60_000).map((p) => [p.startMs, p.count, p.sum]),
    ev.map((e) => [e.ts - (e.ts % 60_000), 1, e.value]),
  );
});

async function jobResult(events: readonly Ev[], s = settings(['1m', '1h'])): Promise<ReturnType<typeof sorted>> {
  const store = new FakeHBase();
  await writeEvents(store, s, events);
  await markEvents(store, s, events);
  await new RollupJob({ store, settings: s, metrics: readMetrics(s).metrics, log: silentLog, now: () => DAY0 + 30 * D }).run();
  return sorted(summariesOfRows(store.rows(s.rollupTable)));
}

void test('backfill (per bucket and per id) = the job on the same data; only [from, to) widened is written', async () => {
  const s = settings(['1m', '1h']);
  const inside = randomEvents({ seed: 21, n: 300, ids: 9, from: DAY0 + 2 * HOUR, hours: 3 });
  const outside: Ev[] = [
    { id: 'dev-1', ts: DAY0 + HOUR - 1, metric: 'temp', value: 1 },
    { id: 'dev-1', ts: DAY0 + 6 * HOUR, metric: 'temp', value: 2 },
  ];
  const expected = await jobResult(inside);
  for (const ids of [undefined, [...new Set(inside.map((e) => e.id))]]) {
    const store = new FakeHBase();
    await writeEvents(store, s, [...inside, ...outside]);
    const progress: number[] = [];
    const r = await runBackfill({
      store,
      settings: s,
      params: { from: DAY0 + 2 * HOUR + 17, to: DAY0 + 5 * HOUR - 3, ids },
      onProgress: (p) => progress.push(p.unitsDone),
    });
    assert.equal(r.status, 'finished');
    assert.equal(r.widened, true);
    assert.deepEqual([r.from, r.to], [DAY0 + 2 * HOUR, DAY0 + 5 * HOUR]);
    assert.equal(r.rowsScanned, new Set(inside.map((e) => `${e.id}|${e.ts}`)).size, 'rows of the range only');
    assert.deepEqual(sorted(summariesOfRows(store.rows(s.rollupTable))), expected, ids === undefined ? 'bucket mode' : 'id mode');
    assert.equal(progress[progress.length - 1], ids === undefined ? B : ids.length);
  }
});

void test('a backfill stopped part-way resumes from its checkpoint to the same result; a finished one says so', async () => {
  const s = settings(['1m', '1h'], { pageRows: 5 });
  const events = randomEvents({ seed: 33, n: 400, ids: 15, from: DAY0, hours: 2 });
  const expected = await jobResult(events);
  const dir = await mkdtemp(join(tmpdir(), 'tsi-backfill-'));
  try {
    for (const ids of [undefined, ['dev-3', 'dev-1', 'dev-7', 'dev-12']]) {
      const file = join(dir, `cp-${ids === undefined ? 'b' : 'i'}.json`);
      const store = new FakeHBase();
      await writeEvents(store, s, events);
      const params = { from: DAY0, to: DAY0 + 2 * HOUR, ids };
      const ac = new AbortController();
      const firstDone: string[] = [];
      const first = await runBackfill({
        store,
        settings: s,
        params,
        checkpoint: backfillCheckpointFile(file),
        signal: ac.signal,
        onIdDone: (id) => {
          if (firstDone.push(id) === 3) ac.abort();
        },
      });
      assert.equal(first.status, 'aborted');
      const saved = JSON.parse(await readFile(file, 'utf8')) as { finished: boolean; unit: number; lastId: string | null };
      assert.equal(saved.finished, false);
      assert.ok(saved.unit > 0 || saved.lastId === firstDone[2], `the checkpoint records the progress: ${JSON.stringify(saved)}`);
      const seen: string[] = [];
      const second = await runBackfill({ store, settings: s, params, checkpoint: backfillCheckpointFile(file), onIdDone: (id) => seen.push(id) });
      assert.equal(second.status, 'finished');
      assert.equal(second.resumed, true);
      assert.deepEqual(
        seen.filter((id) => firstDone.includes(id)),
        [],
        'completed ids are not redone',
      );
      assert.ok(seen.length > 0);
      const want = ids === undefined ? expected : expected.filter(([k]) => ids.includes(k.split('|')[0] as string));
      assert.deepEqual(sorted(summariesOfRows(store.rows(s.rollupTable))), want);
      const third = await runBackfill({ store, settings: s, params, checkpoint: backfillCheckpointFile(file) });
      assert.equal(third.status, 'already_finished');
      await assert.rejects(
        runBackfill({ store, settings: s, params: { ...params, to: DAY0 + 3 * HOUR }, checkpoint: backfillCheckpointFile(file) }),
        (e: unknown) => e instanceof CheckpointError && /other parameters \(to: checkpoint/.test(e.message),
      );
    }
    const junk = join(dir, 'junk.json');
    await writeFile(junk, '{"hello":1}');
    await assert.rejects(backfillCheckpointFile(junk).load(), /is not a backfill checkpoint/);
    assert.equal(await backfillCheckpointFile(join(dir, 'missing.json')).load(), undefined);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const mem = memoryCheckpointStore<Checkpoint>();
  await runBackfill({ store: new FakeHBase(), settings: s, params: { from: DAY0, to: DAY0 + 1 }, checkpoint: mem });
  assert.equal(mem.current?.finished, true, 'an empty table finishes at once');
});
