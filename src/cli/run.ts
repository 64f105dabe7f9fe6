// tsingest run: the long-running ingest service.
import { installSignalHandlers } from '../runtime/lifecycle.ts';
import { createLogger } from '../runtime/logger.ts';
import { startService } from '../service/service.ts';
import { configOf, parseCommand } from './args.ts';

export async function runCommand(argv: readonly string[]): Promise<number> {
  const cfg = configOf(parseCommand(argv, {}).values);
  const log = createLogger({ level: cfg.log.level });
  const service = await startService(cfg, log);
  log.info({ http: service.httpPort }, 'tsingest running');
  installSignalHandlers({ onDrain: () => service.stop('signal'), drainTimeoutMs: cfg.shutdown.drainTimeoutMs, log, exit: (code) => process.exit(code) });
  await service.finished;
  return 0;
}
