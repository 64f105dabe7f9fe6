// What an integration test needs from the stack scripts/test.ts brought up. Missing settings are a
// failure with a clear message, never a skip.
import { randomBytes } from 'node:crypto';
import { endpointsFromEnv } from '../../scripts/lib/stack/config.ts';

export interface TestEnv {
  readonly restUrl: string;
  readonly kafkaBrokers: string;
  readonly adminCommand: readonly string[];
}

export function testEnv(): TestEnv {
  const ep = endpointsFromEnv();
  if (ep === undefined)
    throw new Error('integration tests need TSI_HBASE_REST_URL and TSI_KAFKA_BROKERS; run them through `npm test`, which starts a real stack');
  return { restUrl: ep.restUrl, kafkaBrokers: ep.kafkaBrokers, adminCommand: ep.adminCommand };
}

export function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
}

/**
 * node:test runs `after` hooks in the order they were added; resources want the reverse (a table is
 * dropped before the client that drops it is closed). `defer` registers cleanups that run LIFO.
 */
export function deferrer(t: { after(fn: () => Promise<void>): void }): (fn: () => unknown) => void {
  const stack: (() => unknown)[] = [];
  t.after(async () => {
    for (const fn of stack.reverse()) {
      try {
        await fn();
      } catch (err) {
        process.stderr.write(`cleanup failed: ${String(err)}\n`);
      }
    }
  });
  return (fn) => {
    stack.push(fn);
  };
}
