// tsingest run: the long-running ingest service. Signal handlers are installed before anything
// starts: a SIGTERM during start-up aborts the start cleanly (exit 0), one after it drains the
// service (exit 0 when everything written was committed, 1 when the drain failed), a second forces.
import { installSignalHandlers } from '../runtime/signals.ts';
import { createLogger } from '../runtime/logger.ts';
import { startService, type Service } from '../service/service.ts';
import { configOf, parseCommand } from './args.ts';

export async function runCommand(argv: readonly string[]): Promise<number> {
  const cfg = configOf(parseCommand(argv, {}).values);
  const log = createLogger({ level: cfg.log.level });
  const startAbort = new AbortController();
  const start: { promise?: Promise<Service> } = {};
  installSignalHandlers({
    onDrain: async () => {
      startAbort.abort(new Error('signal during start-up'));
      const service = await start.promise?.catch(() => undefined);
      if (service !== undefined) await service.stop('signal');
    },
    drainTimeoutMs: cfg.shutdown.drainTimeoutMs,
    log,
    exit: (code) => process.exit(code),
  });
  start.promise = startService(cfg, log, { signal: startAbort.signal });
  let service: Service;
  try {
    service = await start.promise;
  } catch (err) {
    if (startAbort.signal.aborted) {
      log.info('start-up aborted by a signal');
      return 0;
    }
    throw err;
  }
  log.info({ http: service.httpPort }, 'tsingest running');
  await service.finished;
  return 0;
}
