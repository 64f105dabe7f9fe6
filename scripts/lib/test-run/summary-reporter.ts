// A node:test reporter for scripts/test.ts: next to the spec reporter, it writes one JSON line per
// summary node:test makes (one per test file, with the file and its duration, and the run's own,
// without a file), so the runner can add up its groups and name the slowest files.
// Used as `--test-reporter=<this file> --test-reporter-destination=<a .jsonl file>`.
import type { TestEvent } from 'node:test/reporters';

export interface SummaryLine {
  /** the test file; absent on the run's own summary */
  readonly file?: string;
  readonly tests: number;
  readonly passed: number;
  readonly failed: number;
  readonly cancelled: number;
  readonly skipped: number;
  readonly todo: number;
  readonly durationMs: number;
  readonly success: boolean;
}

export default async function* summaryReporter(source: AsyncIterable<TestEvent>): AsyncGenerator<string, void> {
  for await (const event of source) {
    if (event.type !== 'test:summary') continue;
    const { counts, duration_ms, file, success } = event.data;
    // `failed` is in the event (Node 24) though @types/node does not declare it.
    const failed = (counts as { failed?: number }).failed ?? 0;
    const line: SummaryLine = {
      ...(file === undefined ? {} : { file }),
      tests: counts.tests,
      passed: counts.passed,
      failed,
      cancelled: counts.cancelled,
      skipped: counts.skipped,
      todo: counts.todo,
      durationMs: duration_ms,
      success,
    };
    yield `${JSON.stringify(line)}\n`;
  }
}
