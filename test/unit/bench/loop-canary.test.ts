// The live phase's canary: a bare Node process reporting its own event-loop delay each second, which
// the watch summarises beside the ingest process's (the machine's scheduling alone).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startCanary } from '../../../scripts/lib/bench/loop-canary.ts';

void test('the canary reports one sample a second after its first, and ends when stopped', async () => {
  const canary = startCanary();
  await new Promise((r) => setTimeout(r, 3500));
  const f = canary.stop();
  assert.ok(f.samples >= 1 && f.samples <= 3, `samples ${f.samples}`);
  // each sample includes the monitor's 10 ms resolution (the delay between its timer's firings)
  assert.ok(f.p99OfP99 >= 10 && f.maxOfP99 >= f.p99OfP99 && f.max >= f.maxOfP99, JSON.stringify(f));
});
