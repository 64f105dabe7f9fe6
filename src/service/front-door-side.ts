// The front door of the service's port, built from the configuration (src/front-door/): the hashed
// credentials read from http.auth.credentialsFile (again when it changes) or http.auth.credentials,
// the concurrency caps (with their metrics: src/metrics/query-limit-metrics.ts), and TLS from
// http.tls's files (handed to the server again when they change).
import type { SecureContextOptions } from 'node:tls';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { Authenticator } from '../front-door/authenticate.ts';
import { countCredentials, NO_CREDENTIALS, parseCredentials, type Credentials } from '../front-door/credentials.ts';
import { createGuard, type Guard } from '../front-door/guard.ts';
import { QueryLimits } from '../front-door/limits.ts';
import { registerQueryLimitMetrics } from '../metrics/index.ts';
import { ConfigError, type Config } from '../runtime/config.ts';
import type { HttpTls } from '../runtime/http.ts';
import { readSecretFile, rotatingFile } from './secrets.ts';

export interface FrontDoor {
  readonly guard: Guard;
  readonly tls: HttpTls | undefined;
}

function parsed(key: string, text: string): Credentials {
  let doc: unknown;
  try {
    doc = JSON.parse(text) as unknown;
  } catch {
    throw new ConfigError(`${key}: not valid JSON`);
  }
  try {
    return parseCredentials(doc);
  } catch (err) {
    throw new ConfigError(`${key}: ${(err as Error).message}`, { cause: err });
  }
}

/** The credentials as of now: the file's, reparsed when it changes (a bad new file keeps the last good one, with an error logged). */
function credentialSource(http: Config['http'], log: Pick<Logger, 'error'>): () => Credentials {
  const { credentialsFile, credentials } = http.auth;
  if (credentialsFile === null) {
    const fixed = credentials === null ? NO_CREDENTIALS : parsed('http.auth.credentials', JSON.stringify(credentials));
    return () => fixed;
  }
  const key = 'http.auth.credentialsFile';
  const read = rotatingFile(key, credentialsFile, 2000, Date.now);
  let text = read();
  let current = parsed(key, text);
  return () => {
    const next = read();
    if (next === text) return current;
    text = next;
    try {
      current = parsed(key, next);
    } catch (err) {
      log.error({ err }, 'http: the changed credentials file is not valid; keeping the credentials read before');
    }
    return current;
  };
}

function tlsOf(http: Config['http']): HttpTls | undefined {
  const t = http.tls;
  if (t.certFile === null || t.keyFile === null) return undefined;
  const files: [keyof SecureContextOptions & ('cert' | 'key' | 'ca'), string, string][] = [
    ['cert', 'http.tls.certFile', t.certFile],
    ['key', 'http.tls.keyFile', t.keyFile],
  ];
  if (t.clientCaFile !== null) files.push(['ca', 'http.tls.clientCaFile', t.clientCaFile]);
  const readers = files.map(([field, key, path]) => ({ field, read: rotatingFile(key, path, 0, Date.now) }));
  const snapshot = (): SecureContextOptions => Object.fromEntries(readers.map((r) => [r.field, r.read()]));
  let last = snapshot();
  return {
    context: last,
    requestCert: t.clientCaFile !== null,
    rejectUnauthorized: t.requireClientCert,
    watch: (apply) => {
      const timer = setInterval(() => {
        let next: SecureContextOptions;
        try {
          next = snapshot();
        } catch {
          return; // mid-rotation: try again next time
        }
        if (readers.every((r) => next[r.field] === last[r.field])) return;
        last = next;
        apply(next);
      }, t.reloadCheckMs);
      timer.unref();
      return () => {
        clearInterval(timer);
      };
    },
  };
}

/** Reads the credentials and TLS files (ConfigError naming the key when one cannot be read), and warns when the port is anonymous by choice. */
export function frontDoor(cfg: Config, log: Logger, registry: Registry): FrontDoor {
  const { http } = cfg;
  const anonymous = http.auth.mode === 'none' || (http.auth.credentialsFile === null && http.auth.credentials === null);
  const creds = credentialSource(http, log);
  if (http.auth.mode === 'none') {
    log.warn({ host: http.host }, 'http.auth.mode is none: the read APIs, /ui and /metrics answer anyone who can reach the port');
  } else if (anonymous) {
    log.info({ host: http.host }, 'http: no credentials configured; the loopback port is anonymous (read, ui, metrics; never admin)');
  } else {
    log.info({ entries: countCredentials(creds()) }, 'http: credentials required on every path but /healthz and /readyz');
  }
  if (http.tls.keyFile !== null) readSecretFile('http.tls.keyFile', http.tls.keyFile);
  let auth = new Authenticator(creds(), { anonymous });
  let basis = creds();
  const limits = new QueryLimits({
    total: http.limits.maxConcurrentQueries,
    perIdentity: http.limits.maxConcurrentPerIdentity,
    waitMs: http.limits.waitMs,
    maxWaiting: http.limits.maxWaiting,
  });
  registerQueryLimitMetrics(registry, limits);
  const guard = createGuard({
    auth: () => {
      const now = creds();
      if (now !== basis) {
        basis = now;
        auth = new Authenticator(now, { anonymous });
      }
      return auth;
    },
    limits,
    log: log.child({ module: 'http' }),
  });
  return { guard, tls: tlsOf(http) };
}
