// The exit codes of `tsingest run`, so that a supervisor can tell a clean stop from a failure, and a
// failure that a restart may heal from one it cannot (docs/OPERATIONS.md: systemd and k8s settings).
import { HBASE_ERROR_CODES, classifyError, type ErrorCode } from '../errors.ts';

export const EXIT = {
  /** stopped cleanly: a drain after SIGTERM/SIGINT committed everything written, or a signal aborted the start */
  OK: 0,
  /** the drain left written work uncommitted (it is replayed on restart), or ran past shutdown.drainTimeoutMs */
  DRAIN_FAILED: 1,
  /** a wrong command line */
  USAGE: 2,
  /** the configuration is wrong or does not match the cluster (tables, topics): a restart alone cannot heal it */
  CONFIG: 3,
  /** a dependency refused for good: Kafka's consumer crashed and kafkajs will not restart it, HBase answered that a table or family is gone, or refused the service at start-up */
  DEPENDENCY: 4,
  /** anything else: a bug or an unexpected failure */
  INTERNAL: 5,
  /** a second signal forced the exit during a drain */
  FORCED: 130,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The exit codes of the one-shot tools that check what they did (`tsingest delete`, `index verify`). */
export const TOOL_EXIT = {
  /** done, and the check found nothing wrong (delete: nothing of the id is left) */
  OK: 0,
  /** done, but the check found something (delete: rows of the id are left, e.g. written meanwhile) */
  FOUND: 1,
  USAGE: 2,
  /** stopped by SIGINT/SIGTERM; a rerun with the same checkpoint continues */
  INTERRUPTED: 130,
} as const;

/** HBase answers that mean the cluster refused for good; the client-side codes are our own bug. */
const CLIENT_SIDE: ReadonlySet<ErrorCode> = new Set(['HBASE_INVALID_ARGUMENT', 'HBASE_CLOSED']);
const LOST_DEPENDENCY: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'CONSUMER_CRASHED',
  'KAFKA',
  'REGISTRY_CONFLICT',
  ...HBASE_ERROR_CODES.filter((c) => !CLIENT_SIDE.has(c)),
]);

/**
 * The exit code for the error that stopped the service (or its start), read from its code
 * (src/errors.ts classifyError). A wrong command line is 2; a configuration that does not validate
 * and a refusal to start (StartupError: tables or topics that do not match, TLS or credentials that
 * do not fit) name what to change in the configuration (3); a fatal HBase answer (a table or family
 * gone) and a consumer kafkajs will not restart are lost dependencies (4); anything else is internal.
 */
export function exitCodeOf(err: unknown): ExitCode {
  const { code } = classifyError(err);
  switch (code) {
    case 'USAGE':
      return EXIT.USAGE;
    case 'CONFIG':
    case 'STARTUP':
      return EXIT.CONFIG;
    case 'DRAIN_FAILED':
      return EXIT.DRAIN_FAILED;
    case 'ABORTED':
      return EXIT.OK;
    default:
      return LOST_DEPENDENCY.has(code) ? EXIT.DEPENDENCY : EXIT.INTERNAL;
  }
}
