// The REST gateway frozen (SIGSTOP) for 60 s while events are produced as fast as the producer
// can: the service's queue depth never exceeds batch.maxQueuedRows, its RSS stays under a generous
// ceiling, consumer lag (measured on a timer, not on progress) shows the stall, and after SIGCONT
// every event is written and the lag returns to 0.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { uniqueName } from '../../support/env.ts';
import {
  countDataCells,
  createHarness,
  freePort,
  makeEvents,
  produceEvents,
  scrapeEvents,
  scrapeGauge,
  startChild,
  waitFor,
  waitForCommittedAtEnd,
} from '../../support/service-harness.ts';
import { freezeStackProcess } from '../../support/stack-control.ts';

const STALL_MS = 60_000;
const MAX_QUEUED = 1000;
const RSS_CEILING = 400 * 2 ** 20;
const CAP = 60_000;

async function totalLag(port: number): Promise<number | null> {
  try {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(2000) })).text();
    let sum = 0;
    let seen = false;
    for (const m of text.matchAll(/^tsingest_consumer_lag\{[^}]*\}\s+(\S+)$/gm)) {
      sum += Number(m[1]);
      seen = true;
    }
    return seen ? sum : null;
  } catch {
    return null;
  }
}

void test('REST stalled 60 s at full produce rate: queue bounded, memory bounded, lag visible, nothing lost', async (t) => {
  const h = await createHarness(t, { prefix: 'qbound' });
  const group = uniqueName('it-qbound-g');
  const extra = [`kafka.groupId=${group}`, 'batch.maxRows=500', `batch.maxQueuedRows=${MAX_QUEUED}`, 'kafka.partitionsConsumedConcurrently=3'];
  const svc = startChild(h, extra, await freePort());
  const warm = makeEvents(1000, { idPrefix: 'warm' });
  await produceEvents(h, warm);
  await waitFor('the service to write the warm-up events', 180_000, async () => {
    if (svc.child.exitCode !== null) throw new Error(`service exited:\n${svc.output()}`);
    return ((await scrapeEvents(svc.port)) ?? 0) >= warm.length;
  });

  const rest = freezeStackProcess(h.defer, 'rest');
  const stallEnd = Date.now() + STALL_MS;
  let produced = 0;
  let maxQueue = 0;
  let maxRss = 0;
  let maxLag = 0;
  let samples = 0;
  const sampling = (async () => {
    while (Date.now() < stallEnd) {
      const [q, rss, lag] = await Promise.all([
        scrapeGauge(svc.port, 'tsingest_queue_depth'),
        scrapeGauge(svc.port, 'tsingest_process_resident_memory_bytes'),
        totalLag(svc.port),
      ]);
      if (q !== null && rss !== null) {
        samples++;
        maxQueue = Math.max(maxQueue, q);
        maxRss = Math.max(maxRss, rss);
      }
      if (lag !== null) maxLag = Math.max(maxLag, lag);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const events = makeEvents(CAP, { idPrefix: 'stall' });
  while (Date.now() < stallEnd && produced < CAP) {
    await produceEvents(h, events.slice(produced, produced + 2000));
    produced += 2000;
  }
  await sampling;
  await rest.restore();

  assert.ok(samples > 10, `the metrics endpoint answered during the stall (${samples} samples)`);
  assert.ok(maxQueue <= MAX_QUEUED, `queue depth ${maxQueue} never exceeded batch.maxQueuedRows ${MAX_QUEUED}`);
  assert.ok(maxQueue > 0, 'records were queued while the gateway was stalled');
  assert.ok(maxRss < RSS_CEILING, `RSS ${Math.round(maxRss / 2 ** 20)} MiB under ${RSS_CEILING / 2 ** 20} MiB`);
  assert.ok(maxLag >= produced / 2, `lag ${maxLag} showed the stall while nothing committed (${produced} produced)`);

  await waitForCommittedAtEnd(h, group, 600_000).catch((err: unknown) => {
    throw new Error(`${String(err)}\n${svc.output()}`);
  });
  assert.equal(await countDataCells(h), warm.length + produced, 'every event present after SIGCONT');
  await waitFor('lag back to 0', 30_000, async () => (await totalLag(svc.port)) === 0, 500);
  svc.child.kill('SIGTERM');
  assert.equal((await svc.exited).code, 0, svc.output());
});
