import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createMetrics } from '../../../src/metrics/ingest-metrics.ts';
import { ALLOWED_TRANSITIONS, LIFECYCLE_STATES, Lifecycle, LifecycleError, canTransition } from '../../../src/runtime/lifecycle.ts';
import type { LifecycleState, Transition } from '../../../src/runtime/lifecycle.ts';
import { createLogger } from '../../../src/runtime/logger.ts';

const log = createLogger({ level: 'silent' });

function at(path: readonly LifecycleState[]): Lifecycle {
  const lc = new Lifecycle({ log });
  for (const state of path) lc.transition(state, `to ${state}`);
  return lc;
}

void describe('Lifecycle', () => {
  void it('starts in starting: live, not ready', () => {
    const lc = new Lifecycle({ log });
    assert.equal(lc.state, 'starting');
    assert.equal(lc.live, true);
    assert.equal(lc.ready, false);
    assert.equal(lc.reason, 'starting up');
  });

  void it('follows the legal path starting → running ⇄ degraded → draining → stopped', () => {
    const lc = new Lifecycle({ log });
    const seen: [LifecycleState, boolean, boolean][] = [];
    for (const state of ['running', 'degraded', 'running', 'draining', 'stopped'] as const) {
      assert.equal(lc.transition(state, `go ${state}`), true);
      seen.push([lc.state, lc.ready, lc.live]);
    }
    assert.deepEqual(seen, [
      ['running', true, true],
      ['degraded', false, true],
      ['running', true, true],
      ['draining', false, true],
      ['stopped', false, false],
    ]);
    assert.equal(lc.reason, 'go stopped');
  });

  void it('allows failed from every non-terminal state and nothing out of the terminal ones', () => {
    for (const from of LIFECYCLE_STATES) {
      const terminal = from === 'stopped' || from === 'failed';
      assert.equal(ALLOWED_TRANSITIONS[from].length === 0, terminal, from);
      if (!terminal) assert.ok(canTransition(from, 'failed'), `${from} → failed`);
    }
    const failed = at(['failed']);
    assert.equal(failed.live, false);
    assert.equal(failed.ready, false);
  });

  void it('throws LifecycleError on every transition outside the table', () => {
    const paths: Record<LifecycleState, LifecycleState[]> = {
      starting: [],
      running: ['running'],
      degraded: ['degraded'],
      draining: ['draining'],
      stopped: ['draining', 'stopped'],
      failed: ['failed'],
    };
    let illegal = 0;
    for (const from of LIFECYCLE_STATES) {
      for (const to of LIFECYCLE_STATES) {
        if (to === from || canTransition(from, to)) continue;
        const lc = at(paths[from]);
        assert.throws(() => lc.transition(to, 'test'), {
          name: 'LifecycleError',
          code: 'ILLEGAL_TRANSITION',
          retriable: false,
          message: `illegal lifecycle transition ${from} → ${to} (test)`,
        });
        assert.equal(lc.state, from, 'state unchanged after an illegal transition');
        illegal += 1;
      }
    }
    assert.ok(illegal >= 15);
    assert.throws(() => at(['stopped']), LifecycleError); // starting → stopped skips draining
  });

  void it('a transition to the current state only updates the reason', () => {
    const lc = at(['running', 'degraded']);
    const calls: Transition[] = [];
    lc.onTransition((t) => calls.push(t));
    assert.equal(lc.transition('degraded', 'hbase still down'), false);
    assert.equal(lc.reason, 'hbase still down');
    assert.deepEqual(calls, []);
  });

  void it('notifies listeners until unsubscribed; a throwing listener does not block the others', () => {
    const lc = new Lifecycle({ log });
    const calls: Transition[] = [];
    lc.onTransition(() => {
      throw new Error('boom');
    });
    const off = lc.onTransition((t) => calls.push(t));
    lc.transition('running', 'consumer joined');
    off();
    lc.transition('draining', 'SIGTERM');
    assert.deepEqual(calls, [{ from: 'starting', to: 'running', reason: 'consumer joined' }]);
  });

  void it('publishes tsingest_ready and tsingest_state', async () => {
    const metrics = createMetrics(undefined, { defaultMetrics: false });
    const lc = new Lifecycle({ log, metrics });
    let text = await metrics.registry.metrics();
    assert.match(text, /^tsingest_ready 0$/m);
    assert.match(text, /^tsingest_state\{state="starting"\} 1$/m);
    assert.match(text, /^tsingest_state\{state="running"\} 0$/m);
    lc.transition('running', 'up');
    text = await metrics.registry.metrics();
    assert.match(text, /^tsingest_ready 1$/m);
    assert.match(text, /^tsingest_state\{state="running"\} 1$/m);
    assert.match(text, /^tsingest_state\{state="starting"\} 0$/m);
    lc.transition('degraded', 'hbase down');
    text = await metrics.registry.metrics();
    assert.match(text, /^tsingest_ready 0$/m);
    assert.equal(text.match(/^tsingest_state\{state="\w+"\} 1$/gm)?.length, 1);
  });
});

void it('health conditions drive running ⇄ degraded; ready only while none fails', () => {
  const lc = new Lifecycle({ log: createLogger({ level: 'silent' }) });
  lc.setCondition('kafka-consumer', false, 'consumer crashed');
  assert.equal(lc.state, 'starting', 'recorded only while starting');
  lc.started('consuming');
  assert.equal(lc.state, 'degraded', 'a condition already failing at start');
  assert.equal(lc.ready, false);
  lc.setCondition('hbase', false, 'HBase unavailable');
  assert.match(lc.reason, /consumer crashed; HBase unavailable/);
  lc.setCondition('kafka-consumer', true);
  assert.equal(lc.state, 'degraded', 'HBase still down');
  lc.setCondition('hbase', true);
  assert.equal(lc.state, 'running');
  assert.equal(lc.ready, true);
  lc.transition('draining', 'signal');
  lc.setCondition('hbase', false, 'down during the drain');
  assert.equal(lc.state, 'draining', 'conditions never leave draining');
});

void describe('a failing condition whose reason is rendered when read', () => {
  void it('keeps counting: /readyz shows the age as of now, not as of the outage', () => {
    const lc = new Lifecycle({ log });
    lc.started('consuming');
    let seconds = 11;
    lc.setCondition('hbase', false, () => `no write acknowledged for ${seconds}s`);
    assert.equal(lc.state, 'degraded');
    assert.equal(lc.reason, 'no write acknowledged for 11s');
    seconds = 42;
    assert.equal(lc.reason, 'no write acknowledged for 42s');
    assert.equal(lc.failing.get('hbase'), 'no write acknowledged for 42s');
    lc.setCondition('hbase', true);
    assert.equal(lc.state, 'running');
    assert.equal(lc.reason, 'hbase recovered');
  });
});
