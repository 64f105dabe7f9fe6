/**
 * The service logger: pino, JSON lines to stdout with a `name: "tsingest"` field, level as a label
 * (`"level":"info"`) and ISO-8601 time. Created once at the root and passed down (child loggers for
 * modules: `log.child({ module: 'writer' })`).
 *
 * `pretty: true` writes one human-readable line per record instead (for a terminal; no extra
 * dependency). `destination` is for tests.
 */
import { pino } from 'pino';
import type { DestinationStream, Logger } from 'pino';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface LoggerOptions {
  readonly level: LogLevel;
  readonly pretty?: boolean;
  /** Where lines go; default stdout (synchronous, so nothing is lost on exit). */
  readonly destination?: DestinationStream;
}

export type { Logger };

/**
 * Paths pino blanks out ('[redacted]') in every record: the credential fields of the configuration
 * and of HTTP requests, at the depths they are logged at. A second line of defence: no code path
 * logs a secret on purpose (docs/SECURITY.md).
 */
export const REDACT_PATHS: readonly string[] = [
  'password',
  'token',
  'authorization',
  'credentials',
  'passphrase',
  '*.password',
  '*.token',
  '*.authorization',
  '*.credentials',
  '*.passphrase',
  '*.*.password',
  '*.*.token',
  '*.*.authorization',
  '*.*.credentials',
  'headers.authorization',
  'headers.cookie',
  '*.headers.authorization',
  '*.headers.cookie',
  '*.headers["proxy-authorization"]',
  'cfg.hbase.auth.password',
  'cfg.hbase.auth.token',
  'cfg.kafka.sasl.password',
  'cfg.http.auth.credentials',
];

/**
 * The message of an error and its causes, each cause's text once: a wrapper that already quotes its
 * cause (HBase errors name the op and table around the gateway's answer, src/hbase/rest-caller.ts)
 * adds nothing, where pino's serializer would append the cause's message again.
 */
export function messageOnce(err: Error): string {
  let out = '';
  const seen = new Set<unknown>();
  for (let e: unknown = err; e instanceof Error && !seen.has(e); e = e.cause) {
    seen.add(e);
    if (e.message !== '' && !out.includes(e.message)) out = out === '' ? e.message : `${out}: ${e.message}`;
  }
  return out;
}

function serializeErr(err: unknown): unknown {
  const out = pino.stdSerializers.err(err as Error) as unknown;
  if (err instanceof Error && typeof out === 'object' && out !== null) (out as { message: string }).message = messageOnce(err);
  return out;
}

const OMIT_IN_PRETTY = new Set(['level', 'time', 'msg', 'name', 'pid', 'hostname']);

/** One JSON log line → `2024-11-22T08:00:00.000Z INFO  message key=value …`. */
export function formatPretty(line: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.endsWith('\n') ? line : `${line}\n`;
  }
  // Values come from JSON.parse, so JSON.stringify always yields a string for them.
  const text = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));
  const head = [
    text(record['time'] ?? ''),
    text(record['level'] ?? '')
      .toUpperCase()
      .padEnd(5),
    text(record['msg'] ?? ''),
  ];
  const rest = Object.entries(record)
    .filter(([key]) => !OMIT_IN_PRETTY.has(key))
    .map(([key, value]) => `${key}=${text(value)}`);
  return `${[...head, ...rest].join(' ')}\n`;
}

function prettyStream(out: DestinationStream): DestinationStream {
  return {
    write(line: string) {
      out.write(formatPretty(line));
    },
  };
}

export function createLogger(options: LoggerOptions): Logger {
  const out = options.destination ?? pino.destination({ dest: 1, sync: true });
  return pino(
    {
      name: 'tsingest',
      level: options.level,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: [...REDACT_PATHS], censor: '[redacted]' },
      serializers: { err: serializeErr },
    },
    options.pretty === true ? prettyStream(out) : out,
  );
}
