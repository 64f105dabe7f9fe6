// SIGTERM mid-stream drains for real: after the child process exits 0, every committed offset's
// records are in HBase and no unit written before the drain finished is left uncommitted (nothing
// at or past a committed offset is in HBase). After a restart every bad record is in the DLQ once.
// The last 2,000 records are produced after the first service exited, so the stop is mid-stream even
// when the service caught up with the producer before the signal (seen on a loaded machine).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DLQ_HEADERS } from '../../../src/ingest/dlq.ts';
import { uniqueName } from '../../support/env.ts';
import {
  createHarness,
  freePort,
  makeEvents,
  offsets,
  produceRaw,
  readRecords,
  retryingRest,
  scrapeEvents,
  startChild,
  waitFor,
  waitForCommittedAtEnd,
  type Harness,
  type RawMessage,
} from '../../support/service-harness.ts';

/** Every data row key in the table as "id\0ts" (binary keys: salt, id, 0x00, reverse ts). */
async function writtenEvents(h: Harness): Promise<Set<string>> {
  return retryingRest(`scan ${h.names.data}`, async () => {
    const seen = new Set<string>();
    for await (const row of h.rest.scan(h.names.data, { batch: 5000 })) {
      const key = row.row;
      const sep = key.indexOf(0x00, 1);
      const ts = 0x7fffffffffffffffn - key.readBigInt64BE(sep + 1);
      seen.add(`${key.subarray(1, sep).toString('utf8')}\u0000${ts.toString()}`);
    }
    return seen;
  });
}

void test('SIGTERM mid-stream: exit 0, committed = written, DLQ once per bad record after restart', async (t) => {
  const h = await createHarness(t, { prefix: 'drain' });
  const events = makeEvents(12_000);
  const messages: RawMessage[] = [];
  events.forEach((e, i) => {
    messages.push({ key: e.id, value: JSON.stringify(e) });
    if (i % 1000 === 999) messages.push({ key: `bad-${i}`, value: `{"id":"bad-${i}","ts":` });
  });
  const bad = messages.length - events.length;
  const group = uniqueName('it-drain-g');
  // A small queue bound: units of a batch are pipelined, so without it the first fetch would put every
  // record in flight before the SIGTERM and the drain would (rightly) finish them all.
  const extra = [`kafka.groupId=${group}`, 'batch.maxRows=500', 'batch.maxQueuedRows=1000', 'kafka.partitionsConsumedConcurrently=3'];

  const first = startChild(h, extra, await freePort());
  // The last records are produced only once the first service has exited: some are always past its
  // commit, however fast it caught up with the producer before the SIGTERM (on a busy machine the
  // signal can land after it consumed everything produced so far).
  const heldBack = messages.length - 2000;
  const producing = (async () => {
    for (let i = 0; i < heldBack; i += 1000) await produceRaw(h, messages.slice(i, Math.min(i + 1000, heldBack)));
  })();
  producing.catch(() => undefined);
  await waitFor(
    'the service to handle 2500 records',
    180_000,
    async () => {
      if (first.child.exitCode !== null) throw new Error(`service exited early:\n${first.output()}`);
      return ((await scrapeEvents(first.port)) ?? 0) >= 2500;
    },
    50,
  );
  first.child.kill('SIGTERM');
  const exit = await first.exited;
  assert.equal(exit.code, 0, `the drain committed what it wrote:\n${first.output()}`);
  await producing;
  await produceRaw(h, messages.slice(heldBack));

  // Read the whole topic back: which record sits at which partition/offset.
  const all = await readRecords(h, messages.length, h.names.topic, 120_000);
  const committed = (await offsets(h, group)).committed;
  const written = await writtenEvents(h);
  let atOrPast = 0;
  let before = 0;
  for (const r of all) {
    const value = r.value?.toString() ?? '';
    if (value.startsWith('{"id":"bad-')) continue;
    const e = JSON.parse(value) as { id: string; ts: number };
    const inHBase = written.has(`${e.id}\u0000${e.ts}`);
    const c = committed[r.partition] ?? -1n;
    if (BigInt(r.offset) < c) {
      before++;
      assert.ok(inHBase, `committed record ${r.partition}/${r.offset} is in HBase\n${first.output()}`);
    } else {
      atOrPast++;
      assert.ok(!inHBase, `record ${r.partition}/${r.offset} at or past the commit (${c}) was not written: no written-but-uncommitted unit\n${first.output()}`);
    }
  }
  assert.ok(before >= 2000 && atOrPast > 0, `stopped mid-stream (${before} committed, ${atOrPast} left)`);

  const second = startChild(h, extra, await freePort());
  await waitForCommittedAtEnd(h, group, 240_000).catch((err: unknown) => {
    throw new Error(`${String(err)}\nservice output:\n${second.output()}`);
  });
  second.child.kill('SIGTERM');
  assert.equal((await second.exited).code, 0, second.output());
  assert.equal((await writtenEvents(h)).size, events.length, `every event written\n${second.output()}`);
  // Every DLQ send is acknowledged before its unit commits, so the topic is complete now.
  const dlqEnd = (await h.admin.fetchTopicOffsets(h.names.dlq)).reduce((n, p) => n + BigInt(p.high) - BigInt(p.low), 0n);
  assert.equal(dlqEnd, BigInt(bad), `each bad record dead-lettered once, not again after the restart\nfirst:\n${first.output()}\nsecond:\n${second.output()}`);
  const dlq = await readRecords(h, bad);
  const sources = new Set(dlq.map((m) => `${m.headers[DLQ_HEADERS.partition] ?? ''}/${m.headers[DLQ_HEADERS.offset] ?? ''}`));
  assert.equal(sources.size, bad, 'distinct source offsets');
});
