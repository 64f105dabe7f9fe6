// The live phase's canary: a bare Node process reporting its own event-loop delay each second, which
// the watch summarises beside the ingest process's (the machine's scheduling alone); and the watch's
// second-by-second record, against a stand-in /metrics.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startCanary } from '../../../scripts/lib/bench/loop-canary.ts';
import { watchIngest } from '../../../scripts/lib/bench/live-watch.ts';

/** Runs `fn` with the URL of a stand-in for the ingest's HTTP port answering with `handler`. */
async function withServer(handler: Parameters<typeof createServer>[1], fn: (url: string) => Promise<void>): Promise<void> {
  const server = createServer(handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    await fn(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    server.close();
  }
}

void test('the canary reports one sample a second after its first, and ends when stopped', async () => {
  const canary = startCanary();
  await new Promise((r) => setTimeout(r, 3500));
  const f = canary.stop();
  assert.ok(f.samples >= 1 && f.samples <= 3, `samples ${f.samples}`);
  // each sample includes the monitor's 10 ms resolution (the delay between its timer's firings)
  assert.ok(f.p99OfP99 >= 10 && f.maxOfP99 >= f.p99OfP99 && f.max >= f.maxOfP99, JSON.stringify(f));
});

void test("the watch keeps each second: lag, the loop's p99 and max, the rollup windows written since it began", async () => {
  let windows = 100;
  const metrics = (): string =>
    [
      'tsingest_consumer_lag{partition="0"} 3',
      'tsingest_consumer_lag{partition="1"} 2',
      'tsingest_event_loop_delay_seconds{quantile="0.99"} 0.0421',
      'tsingest_event_loop_delay_seconds{quantile="1"} 0.0803',
      `tsingest_rollup_windows_written_total{window="1h"} ${(windows += 7)}`,
      '',
    ].join('\n');
  await withServer(
    (req, res) => {
      res.end(req.url?.startsWith('/metrics') === true ? metrics() : 'ok');
    },
    async (url) => {
      const watch = watchIngest(url, process.pid);
      await new Promise((r) => setTimeout(r, 3300));
      const f = await watch.stop();
      const s = f.perSecond;
      assert.ok(f.samples >= 2, `samples ${f.samples}`);
      assert.equal(s.lag.length, f.samples);
      assert.deepEqual(new Set(s.lag), new Set([5]));
      assert.deepEqual(new Set(s.loopP99Ms), new Set([42.1]));
      assert.deepEqual(new Set(s.loopMaxMs), new Set([80.3]));
      assert.equal(s.windowsWritten[0], 0, 'counted from the watch’s first scrape');
      assert.ok((s.windowsWritten.at(-1) ?? 0) > 0, JSON.stringify(s.windowsWritten));
      assert.equal(f.machineEventLoopDelayMs.perSecondP99.length, f.machineEventLoopDelayMs.samples);
    },
  );
});

void test('the watch fails when it read no event-loop delay: a figure of no second is not reported', async () => {
  await withServer(
    (_req, res) => {
      res.statusCode = 503;
      res.end('');
    },
    async (url) => {
      const watch = watchIngest(url, process.pid);
      await new Promise((r) => setTimeout(r, 1500));
      await assert.rejects(watch.stop(), /read no event-loop delay/);
    },
  );
});
