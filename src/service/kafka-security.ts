// kafkajs's `ssl` and `sasl` options from kafka.tls and kafka.sasl: PEM files and passwords read here
// (errors name the setting, never the secret), an OAUTHBEARER token read from its file or printed by
// its command at every (re)authentication, so rotated tokens are picked up.
import { execFile } from 'node:child_process';
import type { ConnectionOptions } from 'node:tls';
import type { SASLOptions } from 'kafkajs';
import { ConfigError, type Config } from '../runtime/config.ts';
import { readSecretFile, tlsFromFiles } from './secrets.ts';

type KafkaSettings = Config['kafka'];

const TOKEN_COMMAND_DEADLINE_MS = 10_000;

/** TLS options for kafkajs (`ssl`), or undefined for plaintext listeners. Verification is always on. */
export function kafkaTls(k: KafkaSettings): ConnectionOptions | undefined {
  if (!k.tls.enabled) return undefined;
  const { ca, ...rest } = tlsFromFiles('kafka.tls', k.tls);
  return { rejectUnauthorized: true, ...(ca === undefined ? {} : { ca: [ca] }), ...rest };
}

/** Runs argv and returns its stdout, trimmed; failures name kafka.sasl.oauthTokenCommand. */
export function tokenFromCommand(argv: readonly string[]): Promise<string> {
  const [cmd, ...args] = argv;
  return new Promise((resolve, reject) => {
    execFile(cmd ?? '', args, { timeout: TOKEN_COMMAND_DEADLINE_MS, maxBuffer: 1 << 20 }, (err, stdout) => {
      const token = stdout.trim();
      if (err !== null)
        reject(
          new ConfigError(
            `kafka.sasl.oauthTokenCommand (${cmd ?? ''}) failed: ${err.killed ? `no token within ${TOKEN_COMMAND_DEADLINE_MS} ms` : (err.message.split('\n')[0] ?? '')}`,
          ),
        );
      else if (token === '') reject(new ConfigError(`kafka.sasl.oauthTokenCommand (${cmd ?? ''}) printed no token`));
      else resolve(token);
    });
  });
}

/** SASL options for kafkajs, or undefined for kafka.sasl.mechanism none. */
export function kafkaSasl(k: KafkaSettings): SASLOptions | undefined {
  const s = k.sasl;
  switch (s.mechanism) {
    case 'none':
      return undefined;
    case 'oauthbearer': {
      const { oauthTokenFile: file, oauthTokenCommand: command } = s;
      return {
        mechanism: 'oauthbearer',
        oauthBearerProvider: async () => ({ value: file !== null ? readSecretFile('kafka.sasl.oauthTokenFile', file) : await tokenFromCommand(command ?? []) }),
      };
    }
    default: {
      const password = s.password ?? readSecretFile('kafka.sasl.passwordFile', s.passwordFile ?? '');
      return { mechanism: s.mechanism, username: s.username ?? '', password };
    }
  }
}

/** A start-up failure of Kafka explained by the setting to check, or undefined when it is not one. */
export function explainKafkaFailure(k: KafkaSettings, err: unknown): string | undefined {
  const e = err as { name?: unknown; message?: unknown; cause?: unknown } | null;
  const text = [e?.message, (e?.cause as { message?: unknown } | undefined)?.message].filter((m) => typeof m === 'string').join(': ');
  if (e?.name === 'KafkaJSSASLAuthenticationError') {
    const who =
      k.sasl.mechanism === 'oauthbearer'
        ? 'kafka.sasl.oauthTokenFile / oauthTokenCommand'
        : `kafka.sasl.username (${k.sasl.username ?? ''}) and kafka.sasl.password / passwordFile`;
    return `Kafka refused the SASL ${k.sasl.mechanism} credentials: check ${who}: ${text}`;
  }
  if (k.tls.enabled && /disconnected before secure TLS connection was established/i.test(text)) {
    return `TLS to the Kafka brokers failed: kafka.tls.enabled is true but the listener does not speak TLS (a PLAINTEXT or SASL_PLAINTEXT listener?): check kafka.brokers and kafka.tls: ${text}`;
  }
  if (/certificate|self.signed|unable to verify|ERR_TLS|SSL routines|wrong version number/i.test(text)) {
    return `TLS to the Kafka brokers failed: check kafka.tls (enabled ${String(k.tls.enabled)}, caFile, certFile/keyFile, serverName) against the listener: ${text}`;
  }
  if (!k.tls.enabled && /Closed connection|Connection closed|ECONNRESET/i.test(text)) {
    return `the Kafka brokers closed the connection at once: if the listener is SSL or SASL_SSL, set kafka.tls.enabled (now false) and kafka.tls.caFile; if it is SASL, kafka.sasl: ${text}`;
  }
  return undefined;
}
