// kafkajs logs through our pino logger: its ERROR/WARN/INFO/DEBUG map to the same pino levels, except
// the retriable "coordinator not ready yet" responses, which kafkajs retries by itself.
import { logLevel, type logCreator } from 'kafkajs';
import type { Logger } from 'pino';

/**
 * kafkajs error texts (protocol errors 14 GROUP_LOAD_IN_PROGRESS and 15 GROUP_COORDINATOR_NOT_AVAILABLE)
 * that a fresh broker answers while it creates and loads `__consumer_offsets`: normal start-up,
 * retried by kafkajs until the coordinator is ready. If it never is, kafkajs fails the consumer
 * with its own error-level log (`Crash: …`), so nothing is hidden by logging these at info.
 */
export const COORDINATOR_STARTING_ERRORS: readonly string[] = [
  "The coordinator is loading and hence can't process requests for this group",
  'The group coordinator is not available',
];

type KafkaLogEntry = { readonly message: string; readonly [key: string]: unknown };

/** A kafkajs ERROR that is only the group coordinator still starting up (see above). */
export function isCoordinatorStarting(entry: KafkaLogEntry): boolean {
  const error = entry['error'];
  return typeof error === 'string' && COORDINATOR_STARTING_ERRORS.includes(error);
}

export function kafkaLogCreator(log: Logger): logCreator {
  const child = log.child({ component: 'kafkajs' });
  return () =>
    ({ level, log: entry }) => {
      const { message, ...rest } = entry;
      if (level === logLevel.ERROR || level === logLevel.NOTHING) {
        if (isCoordinatorStarting(entry)) child.info({ ...rest, retriable: true }, `${message} (group coordinator still starting; kafkajs retries)`);
        else child.error(rest, message);
      } else if (level === logLevel.WARN) child.warn(rest, message);
      else if (level === logLevel.INFO) child.info(rest, message);
      else child.debug(rest, message);
    };
}
