import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { HBaseError } from '../../../src/hbase/errors.ts';
import { installSignalHandlers } from '../../../src/runtime/signals.ts';
import type { SignalSource } from '../../../src/runtime/signals.ts';
import { createLogger } from '../../../src/runtime/logger.ts';

const log = createLogger({ level: 'silent' });

/** A fake exit that records codes and lets a test await the first one. */
function fakeExit(): { exit: (code: number) => void; codes: number[]; first: Promise<number> } {
  const codes: number[] = [];
  let resolveFirst: (code: number) => void = () => undefined;
  const first = new Promise<number>((resolve) => (resolveFirst = resolve));
  return {
    codes,
    first,
    exit: (code) => {
      codes.push(code);
      resolveFirst(code);
    },
  };
}

function emitter(): EventEmitter & SignalSource {
  return new EventEmitter();
}

function deferred(): { promise: Promise<void>; resolve: () => void; reject: (err: Error) => void } {
  let resolve: () => void = () => undefined;
  let reject: (err: Error) => void = () => undefined;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

void describe('installSignalHandlers', () => {
  void it('first signal drains, then exits 0', async () => {
    const source = emitter();
    const { exit, codes, first } = fakeExit();
    const drain = deferred();
    let drains = 0;
    const uninstall = installSignalHandlers({
      onDrain: () => {
        drains += 1;
        return drain.promise;
      },
      drainTimeoutMs: 10_000,
      log,
      exit,
      source,
    });
    source.emit('SIGTERM', 'SIGTERM');
    assert.equal(drains, 1);
    assert.deepEqual(codes, []);
    drain.resolve();
    assert.equal(await first, 0);
    uninstall();
    assert.equal(source.listenerCount('SIGTERM'), 0);
    assert.equal(source.listenerCount('SIGINT'), 0);
  });

  void it('a second signal forces exit 130 at once; exit is called only once', async () => {
    const source = emitter();
    const { exit, codes } = fakeExit();
    const drain = deferred();
    const uninstall = installSignalHandlers({ onDrain: () => drain.promise, drainTimeoutMs: 10_000, log, exit, source });
    source.emit('SIGINT', 'SIGINT');
    source.emit('SIGTERM', 'SIGTERM');
    assert.deepEqual(codes, [130]);
    drain.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    source.emit('SIGTERM', 'SIGTERM');
    assert.deepEqual(codes, [130]);
    uninstall();
  });

  void it('a drain that fails (rejects or throws) exits 1', async () => {
    for (const onDrain of [
      () => Promise.reject(new Error('commit failed')),
      () => {
        throw new Error('sync failure');
      },
    ]) {
      const source = emitter();
      const { exit, first } = fakeExit();
      const uninstall = installSignalHandlers({ onDrain, drainTimeoutMs: 10_000, log, exit, source });
      source.emit('SIGTERM', 'SIGTERM');
      assert.equal(await first, 1);
      uninstall();
    }
  });

  void it('a fatal failure during the drain exits with its own code (a lost dependency: 4)', async () => {
    const source = emitter();
    const { exit, first } = fakeExit();
    const gone = new HBaseError({ code: 'HBASE_TABLE_NOT_FOUND', status: 404, message: 'no such table' });
    const uninstall = installSignalHandlers({ onDrain: () => Promise.reject(gone), drainTimeoutMs: 10_000, log, exit, source });
    source.emit('SIGTERM', 'SIGTERM');
    assert.equal(await first, 4);
    uninstall();
  });

  void it('the watchdog forces exit 1 when the drain outlasts drainTimeoutMs', async () => {
    const source = emitter();
    const { exit, codes, first } = fakeExit();
    const drain = deferred();
    const uninstall = installSignalHandlers({ onDrain: () => drain.promise, drainTimeoutMs: 20, log, exit, source });
    source.emit('SIGTERM', 'SIGTERM');
    assert.equal(await first, 1);
    drain.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(codes, [1]);
    uninstall();
  });

  void it('uninstalling before a signal leaves nothing behind', () => {
    const source = emitter();
    const { exit, codes } = fakeExit();
    const uninstall = installSignalHandlers({
      onDrain: () => Promise.resolve(),
      drainTimeoutMs: 10,
      log,
      exit,
      source,
      signals: ['SIGUSR2'],
    });
    assert.equal(source.listenerCount('SIGUSR2'), 1);
    assert.equal(source.listenerCount('SIGTERM'), 0);
    uninstall();
    source.emit('SIGUSR2', 'SIGUSR2');
    assert.deepEqual(codes, []);
  });

  void it('works on the real process (other SIGTERM listeners set aside and restored)', async (t) => {
    const saved = process.listeners('SIGTERM');
    process.removeAllListeners('SIGTERM');
    let uninstall: () => void = () => undefined;
    t.after(() => {
      uninstall();
      process.removeAllListeners('SIGTERM');
      for (const listener of saved) process.on('SIGTERM', listener);
    });
    const { exit, first } = fakeExit();
    let drained = false;
    uninstall = installSignalHandlers({
      onDrain: () => {
        drained = true;
        return Promise.resolve();
      },
      drainTimeoutMs: 10_000,
      log,
      exit,
      signals: ['SIGTERM'],
    });
    assert.equal(process.listenerCount('SIGTERM'), 1);
    process.emit('SIGTERM', 'SIGTERM');
    assert.equal(await first, 0);
    assert.equal(drained, true);
    uninstall();
    assert.equal(process.listenerCount('SIGTERM'), 0);
  });
});
