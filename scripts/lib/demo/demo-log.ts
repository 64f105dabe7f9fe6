// Where `npm start`'s demo sends the logs, so its terminal output reads as one story: the service's
// JSON log lines (kafkajs's among them: group joins, rebalances, retries) go to one file per run,
// whose path the demo prints; the `tsingest` commands it runs log only warnings and errors.
import { join } from 'node:path';
import { pino } from 'pino';
import { createLogger, type Logger } from '../../../src/runtime/index.ts';

/** The log file of a demo run, beside the local stack's own logs (`<stack>/logs`). */
export function demoLogFile(stackLogDir: string): string {
  return join(stackLogDir, 'npm-start.log');
}

/** The service's logger for the demo: every record at info and above, JSON lines to `file` (truncated at each run). */
export function demoLogger(file: string): Logger {
  return createLogger({ level: 'info', destination: pino.destination({ dest: file, sync: true, mkdir: true, append: false }) });
}

/** `--set` values the demo gives the `tsingest` commands it runs: only warnings and errors reach the terminal. */
export const DEMO_COMMAND_SETS: readonly string[] = ['log.level=warn'];
