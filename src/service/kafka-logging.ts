// kafkajs logs through our pino logger, at warn and above.
import { logLevel, type logCreator } from 'kafkajs';
import type { Logger } from 'pino';

export function kafkaLogCreator(log: Logger): logCreator {
  const child = log.child({ component: 'kafkajs' });
  return () => ({ level, log: entry }) => {
    const { message, ...rest } = entry;
    if (level === logLevel.ERROR || level === logLevel.NOTHING) child.error(rest, message);
    else if (level === logLevel.WARN) child.warn(rest, message);
    else if (level === logLevel.INFO) child.info(rest, message);
    else child.debug(rest, message);
  };
}
