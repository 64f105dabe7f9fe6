// tsingest run [--role ingest|query|all]: the long-running service, in the role the flag, TSI_ROLE or
// service.role names (the flag wins; default all: src/service/roles.ts). Signal handlers are
// installed before anything starts: a SIGTERM during start-up aborts the start cleanly (exit 0), one after it drains the
// service (exit 0 when everything written was committed, 1 when the drain failed), a second forces
// (130). A service that stops on its own stops for a fatal error and exits with that error's code:
// 3 configuration, 4 a lost dependency, 5 internal (src/runtime/exit-codes.ts, docs/OPERATIONS.md).
import { EXIT, exitCodeOf } from '../runtime/exit-codes.ts';
import { installSignalHandlers } from '../runtime/signals.ts';
import { createLogger } from '../runtime/logger.ts';
import { SERVICE_ROLES, isServiceRole } from '../service/roles.ts';
import { startService, type Service } from '../service/service.ts';
import { UsageError, configOf, parseCommand, stringFlag, type FlagValues } from './args.ts';

export const RUN_USAGE = `tsingest run [--role ${SERVICE_ROLES.join('|')}] [--config FILE] [--set key=value …]`;

/** The flags with `--role` as the last `--set` (it wins over the file, TSI_ROLE and other --set); a role that does not exist is a UsageError. */
export function withRole(values: FlagValues): FlagValues {
  const role = stringFlag(values, 'role');
  if (role === undefined) return values;
  if (!isServiceRole(role)) throw new UsageError(`--role must be one of ${SERVICE_ROLES.join(', ')}, got "${role}"`);
  const sets = Array.isArray(values['set']) ? values['set'] : [];
  return { ...values, set: [...sets, `service.role=${role}`] };
}

export async function runCommand(argv: readonly string[]): Promise<number> {
  let cfg;
  try {
    cfg = configOf(withRole(parseCommand(argv, { role: { type: 'string' } }).values));
  } catch (err) {
    process.stderr.write(`tsingest: ${err instanceof Error ? err.message : String(err)}\n`);
    return exitCodeOf(err);
  }
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
  // Whatever escapes every handler is a bug: say so with the internal code, not Node's bare 1 (which
  // means an uncommitted drain here).
  const internal = (err: unknown): void => {
    log.fatal({ err, exitCode: EXIT.INTERNAL }, 'unexpected failure outside every handler');
    process.exit(EXIT.INTERNAL);
  };
  process.once('unhandledRejection', internal);
  process.once('uncaughtException', internal);
  start.promise = startService(cfg, log, { signal: startAbort.signal });
  let service: Service;
  try {
    service = await start.promise;
  } catch (err) {
    if (startAbort.signal.aborted) {
      log.info('start-up aborted by a signal');
      return EXIT.OK;
    }
    const code = exitCodeOf(err);
    log.fatal({ err, exitCode: code }, 'tsingest could not start');
    return code;
  }
  log.info({ http: service.httpPort, role: service.role }, 'tsingest running');
  try {
    await service.finished;
  } catch (err) {
    // Stopped for a fatal error (a drain for a signal exits through the signal handler instead).
    const code = exitCodeOf(err);
    log.fatal({ err, exitCode: code }, 'tsingest stopped by a fatal error');
    process.exit(code); // explicitly, as the signal handler does: a stray handle must not keep a failed service up
  }
  return EXIT.OK;
}
