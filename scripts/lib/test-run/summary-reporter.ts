// A node:test reporter for scripts/test.ts: next to the spec reporter, it writes one JSON line per
// summary node:test makes (one per test file, with the file and its duration, and the run's own,
// without a file), so the runner can add up its groups and name the slowest files; and one per failed
// test with its error, so the run's last lines say what failed and why (a CI log's tail is often all
// that is kept).
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

/** A failed test (not a suite, nor a file's own wrapper): where, which, and its error's message. */
export interface FailureLine {
  readonly failure: { readonly file?: string; readonly name: string; readonly message: string };
}

/** The message of a failed test's error: node:test wraps the thrown error as `cause`. */
function failureMessage(error: unknown): string {
  const e = error as { message?: unknown; cause?: { message?: unknown } } | undefined;
  const inner = e?.cause?.message ?? e?.message;
  return typeof inner === 'string' ? inner : String(error);
}

export default async function* summaryReporter(source: AsyncIterable<TestEvent>): AsyncGenerator<string, void> {
  for await (const event of source) {
    if (event.type === 'test:fail') {
      const { details, file, name } = event.data;
      if (details.type === 'suite') continue;
      const line: FailureLine = { failure: { ...(file === undefined ? {} : { file }), name, message: failureMessage(details.error) } };
      yield `${JSON.stringify(line)}\n`;
      continue;
    }
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
