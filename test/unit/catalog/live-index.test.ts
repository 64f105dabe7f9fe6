// The read side's catalog: loaded whole at first, then reread by what is new (cell time since the last
// reread less the slack), whole again every fullEvery-th time; a miss rereads at once, throttled.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LiveIndex, type LiveIndexOptions } from '../../../src/catalog/live-index.ts';
import { SeriesIndex, type SeriesSource } from '../../../src/catalog/series-index.ts';
import type { Series } from '../../../src/catalog/rows.ts';

/** A catalog whose rows carry the time they were written; reads honour `sinceMs` as a cell-time scan does. */
class TimedSource implements SeriesSource {
  readonly rows: { at: number; s: Series }[] = [];
  readonly reads: (number | undefined)[] = [];

  read(_metric?: undefined, sinceMs?: number): Promise<{ series: Series[] }> {
    this.reads.push(sinceMs);
    return Promise.resolve({ series: this.rows.filter((r) => sinceMs === undefined || r.at >= sinceMs).map((r) => r.s) });
  }
}

void test('first a whole read, then only what is new; a miss rereads at once; a row written long ago is caught by the next whole read', async () => {
  const clock = { ms: 1_000_000 };
  const source = new TimedSource();
  source.rows.push({ at: 900_000, s: { metric: 'temp', id: 'a', tags: {} } });
  const live = new LiveIndex({ index: new SeriesIndex({ idTagKey: 'id', source }), refreshMs: 60_000, missMs: 2000, slackMs: 10_000, now: () => clock.ms });
  await live.ready('temp');
  assert.deepEqual(source.reads, [undefined], 'the first read is whole');
  assert.deepEqual(live.index.metrics(), ['temp']);

  clock.ms += 5000;
  source.rows.push({ at: clock.ms, s: { metric: 'hum', id: 'a', tags: {} } });
  await live.ready('hum');
  assert.deepEqual(source.reads, [undefined, 1_000_000 - 10_000], 'a miss rereads what is new since the last read, less the slack');
  assert.deepEqual(live.index.metrics(), ['hum', 'temp']);
  await live.ready('hum');
  assert.equal(source.reads.length, 2, 'a known metric rereads nothing');
  await live.ready('load');
  assert.equal(source.reads.length, 2, 'a miss within missMs of the last reread waits for the timer');

  // A writer whose clock is far behind: its row is older than the slack, so only a whole read sees it.
  source.rows.push({ at: 100, s: { metric: 'load', id: 'b', tags: {} } });
  clock.ms += 3000;
  await live.refresh();
  assert.deepEqual(live.index.metrics(), ['hum', 'temp'], 'not in a reread of what is new');
  await live.refresh(true);
  assert.deepEqual(live.index.metrics(), ['hum', 'load', 'temp'], 'a whole reread catches it');
  assert.equal(source.reads.filter((r) => typeof r !== 'number').length, 2, 'two whole reads in all');
});

void test('freshMs 0: a new series of a known metric is in the first answer after its write; queries arriving together share one reread', async () => {
  const clock = { ms: 1_000_000 };
  const source = new TimedSource();
  source.rows.push({ at: 900_000, s: { metric: 'temp', id: 'a', tags: {} } });
  const live = new LiveIndex({ index: new SeriesIndex({ idTagKey: 'id', source }), refreshMs: 60_000, freshMs: 0, now: () => clock.ms });
  await live.ready('temp');
  clock.ms += 10;
  source.rows.push({ at: clock.ms, s: { metric: 'temp', id: 'new', tags: {} } });
  await live.ready('temp');
  assert.deepEqual(
    live.index.lookup('temp', []).series.map((s) => s.id),
    ['a', 'new'],
  );
  const before = source.reads.length;
  clock.ms += 10;
  await Promise.all([live.ready('temp'), live.ready('temp'), live.ready('temp')]);
  assert.equal(source.reads.length, before + 1, 'three queries at once, one reread');
});

void test('freshMs 1000: a reread started within the last second serves the query; an older one does not', async () => {
  const clock = { ms: 1_000_000 };
  const source = new TimedSource();
  const live = new LiveIndex({ index: new SeriesIndex({ idTagKey: 'id', source }), refreshMs: 60_000, freshMs: 1000, now: () => clock.ms });
  await live.ready('temp');
  clock.ms += 500;
  await live.ready('temp');
  assert.equal(source.reads.length, 1, 'the first read is half a second old: enough');
  clock.ms += 600;
  await live.ready('temp');
  assert.equal(source.reads.length, 2, 'past a second: reread');
});

void test('freshMs 0: the sub-queries of one request (one arrival time) share one reread', async () => {
  const clock = { ms: 1_000_000 };
  const source = new TimedSource();
  const live = new LiveIndex({ index: new SeriesIndex({ idTagKey: 'id', source }), refreshMs: 60_000, freshMs: 0, now: () => clock.ms });
  await live.ready('temp');
  const arrived = (clock.ms += 10);
  const before = source.reads.length;
  for (const metric of ['temp', 'hum', 'load', 'temp']) {
    await live.ready(metric, arrived);
    clock.ms += 5;
  }
  assert.equal(source.reads.length, before + 1, 'four sub-queries, one reread');
  await live.ready('temp', clock.ms);
  assert.equal(source.reads.length, before + 2, 'a later request, another');
});

/** A source whose reads take the rows as they are when the read starts, and answer when released. */
class SlowSource extends TimedSource {
  readonly #gates: (() => void)[] = [];

  override read(metric?: undefined, sinceMs?: number): Promise<{ series: Series[] }> {
    const answer = super.read(metric, sinceMs);
    return new Promise((resolve) => {
      this.#gates.push(() => {
        resolve(answer);
      });
    });
  }

  /** Answers every read asked so far; how many. */
  release(): number {
    const n = this.#gates.length;
    for (const g of this.#gates.splice(0)) g();
    return n;
  }
}

const tick = (ms = 0): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A fresh (freshMs 0, a 30 ms linger) catalog over a SlowSource, loaded with one series; how many reads that took. */
async function loadedSlow(): Promise<{ clock: { ms: number }; source: SlowSource; live: LiveIndex; loaded: number }> {
  const clock = { ms: 1_000_000 };
  const source = new SlowSource();
  source.rows.push({ at: 900_000, s: { metric: 'temp', id: 'a', tags: {} } });
  const live = new LiveIndex({ index: new SeriesIndex({ idTagKey: 'id', source }), refreshMs: 60_000, freshMs: 0, freshLingerMs: 30, now: () => clock.ms });
  const first = live.ready('temp');
  source.release();
  await first;
  return { clock, source, live, loaded: source.reads.length };
}

void test('freshMs 0: queries arriving one after another while a reread is in flight board one next reread, after its linger, and each sees what was written before it arrived', async () => {
  const { clock, source, live, loaded } = await loadedSlow();
  // a reread in flight (started by the timer's kind of call), then a series written, then three queries
  clock.ms += 10;
  const older = live.refresh();
  clock.ms += 10;
  source.rows.push({ at: clock.ms, s: { metric: 'temp', id: 'late', tags: {} } });
  const queries: Promise<void>[] = [];
  for (let i = 0; i < 3; i++) {
    clock.ms += 1;
    queries.push(live.ready('temp'));
    await tick(2);
  }
  assert.equal(source.release(), 1, 'only the older reread asked so far');
  await older;
  await tick(60); // the linger
  assert.equal(source.release(), 1, 'one next reread for the three queries');
  await Promise.all(queries);
  assert.equal(source.reads.length, loaded + 2);
  assert.deepEqual(
    live.index.lookup('temp', []).series.map((s) => s.id),
    ['a', 'late'],
    'the series written before the queries arrived is in',
  );
});

void test('freshMs 0: queries arriving a few ms apart board one reread (its linger), which sees what was written between their arrivals', async () => {
  const { clock, source, live, loaded } = await loadedSlow();
  const queries: Promise<void>[] = [];
  for (const id of ['b', 'c', 'd']) {
    clock.ms += 2;
    queries.push(live.ready('temp'));
    source.rows.push({ at: clock.ms, s: { metric: 'temp', id, tags: {} } }); // written just after this query arrived
    await tick(2);
  }
  await tick(60);
  assert.equal(source.release(), 1, 'one reread for the three');
  await tick(10);
  assert.equal(source.release(), 0, 'and no second one (without the linger, the later two waited out the first and read again)');
  await Promise.all(queries);
  assert.equal(source.reads.length, loaded + 1);
  assert.deepEqual(
    live.index.lookup('temp', []).series.map((s) => s.id),
    ['a', 'b', 'c', 'd'],
  );
});

void test("freshMs 0 with the catalog's generation: a query's reread scans only when a writer replaced the token; timed and whole rereads always scan", async () => {
  const clock = { ms: 1_000_000 };
  const source = new TimedSource();
  const gen = { token: undefined as string | undefined, reads: 0 };
  source.rows.push({ at: 900_000, s: { metric: 'temp', id: 'a', tags: {} } });
  const generation = (): Promise<{ token: string; journaled: boolean } | undefined> => {
    gen.reads++;
    return Promise.resolve(gen.token === undefined ? undefined : { token: gen.token, journaled: false });
  };
  const live = new LiveIndex({
    index: new SeriesIndex({ idTagKey: 'id', source }),
    refreshMs: 60_000,
    freshMs: 0,
    freshLingerMs: 0,
    generation,
    now: () => clock.ms,
  });
  await live.ready('temp');
  clock.ms += 10;
  await live.ready('temp');
  assert.equal(source.reads.length, 2, 'no token yet (no writer replaces one): every reread scans');

  // a writer puts its series row, then replaces the token
  gen.token = 'aa';
  clock.ms += 10;
  source.rows.push({ at: clock.ms, s: { metric: 'temp', id: 'b', tags: {} } });
  clock.ms += 10;
  const scannedAt = clock.ms;
  await live.ready('temp');
  assert.equal(source.reads.length, 3, 'a new token: scanned');
  assert.deepEqual(
    live.index.lookup('temp', []).series.map((s) => s.id),
    ['a', 'b'],
  );
  clock.ms += 10;
  await live.ready('temp');
  clock.ms += 10;
  await live.ready('temp');
  assert.equal(source.reads.length, 3, 'the token as before the last scan: nothing scanned');
  assert.equal(live.skips, 2);

  // a writer that does not replace the token: its row waits for a timed reread
  clock.ms += 10;
  source.rows.push({ at: clock.ms, s: { metric: 'temp', id: 'c', tags: {} } });
  clock.ms += 10;
  await live.ready('temp');
  assert.equal(source.reads.length, 3);
  await live.refresh();
  assert.equal(source.reads.length, 4, 'a timed reread scans whatever the token');
  assert.equal(source.reads[3], scannedAt - 300_000, 'what is new since the last scan (less the slack), not since a skipped reread');
  assert.deepEqual(
    live.index.lookup('temp', []).series.map((s) => s.id),
    ['a', 'b', 'c'],
  );

  // the token replaced while a scan is under way: read before the scan, so the next query scans again
  gen.token = 'bb';
  clock.ms += 10;
  await live.ready('temp');
  assert.equal(source.reads.length, 5);
  assert.equal(gen.reads, 8, 'one token read per reread (the first whole one included)');
});

/** A live index over one series ('a'), every query's reread fresh, its generation `gen` (a journaling writer's at first), the journal `journal`. */
function journaledLive(journal: NonNullable<LiveIndexOptions['journal']>) {
  const clock = { ms: 10_000_000 };
  const source = new TimedSource();
  source.rows.push({ at: 9_000_000, s: { metric: 'temp', id: 'a', tags: {} } });
  const gen = { token: 'aa', journaled: true };
  const live = new LiveIndex({
    index: new SeriesIndex({ idTagKey: 'id', source }),
    refreshMs: 60_000,
    freshMs: 0,
    freshLingerMs: 0,
    slackMs: 1000,
    generation: () => Promise.resolve({ token: gen.token, journaled: gen.journaled }),
    journal,
    now: () => clock.ms,
  });
  return { clock, source, gen, live };
}

void test("with the journal: a query's reread after the generation changed reads the journal, not every row; a timed reread still scans from the last scan; an old last reread scans", async () => {
  const journalReads: [number, number][] = [];
  const journaled: { at: number; s: Series }[] = [];
  const { clock, source, gen, live } = journaledLive((sinceMs, nowMs) => {
    journalReads.push([sinceMs, nowMs]);
    return Promise.resolve({ series: journaled.filter((j) => j.at >= sinceMs).map((j) => j.s) });
  });
  await live.ready('temp');
  assert.deepEqual(source.reads, [undefined], 'the first read is whole');
  const firstScan = clock.ms;

  // a journaling writer: series row, journal cell, then the token
  clock.ms += 100;
  const b = { metric: 'temp', id: 'b', tags: {} };
  source.rows.push({ at: clock.ms, s: b });
  journaled.push({ at: clock.ms, s: b });
  gen.token = 'bb';
  clock.ms += 100;
  await live.ready('temp');
  assert.equal(source.reads.length, 1, 'no scan');
  assert.deepEqual(journalReads, [[firstScan - 1000, clock.ms]], 'the journal since the last reread, less the slack');
  assert.deepEqual(
    live.index.lookup('temp', []).series.map((s) => s.id),
    ['a', 'b'],
  );
  assert.deepEqual(live.rereads(), { scanned: 1, journal: 1, unchanged: 0 });

  // a writer that keeps no journal (the backfill): a timed reread finds it, reaching back to the last scan
  clock.ms += 100;
  source.rows.push({ at: clock.ms, s: { metric: 'temp', id: 'c', tags: {} } });
  await live.refresh();
  assert.deepEqual(source.reads.slice(1), [firstScan - 1000], 'from the last scan, not from the journal read');
  assert.ok(live.index.lookup('temp', []).series.some((s) => s.id === 'c'));

  // the last writer keeps no journal (its token is not in `j`): scanned
  clock.ms += 100;
  source.rows.push({ at: clock.ms, s: { metric: 'temp', id: 'd', tags: {} } });
  gen.token = 'cc';
  gen.journaled = false;
  await live.ready('temp');
  assert.equal(source.reads.length, 3, 'scanned: the last writer kept no journal');
  assert.ok(live.index.lookup('temp', []).series.some((s) => s.id === 'd'));

  // a last reread older than the journal keeps: a changed token scans
  clock.ms += 40 * 60_000;
  gen.token = 'dd';
  gen.journaled = true;
  await live.ready('temp');
  assert.equal(source.reads.length, 4, 'scanned: the journal may not reach back that far');
  assert.equal(journalReads.length, 1);
});

void test('the journal gets the index its own seen cells: the same map each read, emptied when a whole reread replaces the content', async () => {
  const maps: Map<string, number>[] = [];
  const { clock, gen, live } = journaledLive((_sinceMs, nowMs, seen) => {
    maps.push(seen);
    seen.set(`cell-${nowMs}`, nowMs); // what a store would note
    return Promise.resolve({ series: [] });
  });
  await live.ready('temp');
  for (const token of ['bb', 'cc']) {
    clock.ms += 100;
    gen.token = token;
    await live.ready('temp');
  }
  assert.equal(maps.length, 2);
  assert.equal(maps[0], maps[1], 'one map for every journal read');
  const seen = maps[0];
  assert.ok(seen !== undefined);
  assert.equal(seen.size, 2);
  await live.refresh(true);
  assert.equal(seen.size, 0, 'a whole reread: a cell the journal gave may be given again');
});
