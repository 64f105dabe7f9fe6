// Reads the configuration once at start: file → environment → flags, later sources win, then one
// validation whose errors name the offending key (`kafka.brokers.0: host:port`).
import { readFileSync } from 'node:fs';
import { InputError, ServiceError, type CauseOptions } from '../errors.ts';
import { durationSeconds, isRollupWindowFamily, rollupWindowFamily } from '../keys/index.ts';
import { spreadTiming } from '../spread/timing.ts';
import { configSchema, type Config } from './config-schema.ts';

export type { Config, TableConfig } from './config-schema.ts';
export { isLoopback } from './config-http.ts';

/** A configuration that does not validate (its message names the key at fault): exit 3. */
export class ConfigError extends ServiceError<'CONFIG'> {
  override readonly name = 'ConfigError';

  constructor(message: string, options: CauseOptions = {}) {
    super({ code: 'CONFIG', message, cause: options.cause });
  }
}

/** Environment variables the service understands, and the config key each one sets. */
export const ENV_KEYS: Readonly<Record<string, string>> = {
  TSI_ROLE: 'service.role',
  TSI_KAFKA_BROKERS: 'kafka.brokers',
  TSI_KAFKA_TOPIC: 'kafka.topic',
  TSI_KAFKA_GROUP_ID: 'kafka.groupId',
  TSI_KAFKA_DLQ_TOPIC: 'kafka.dlqTopic',
  TSI_KAFKA_USERNAME: 'kafka.sasl.username',
  TSI_KAFKA_PASSWORD: 'kafka.sasl.password',
  TSI_HBASE_REST_URL: 'hbase.restUrl',
  TSI_HBASE_REST_URLS: 'hbase.restUrls',
  TSI_ADMIN_COMMAND: 'hbase.adminCommand',
  TSI_HBASE_USERNAME: 'hbase.auth.username',
  TSI_HBASE_PASSWORD: 'hbase.auth.password',
  TSI_HBASE_TOKEN: 'hbase.auth.token',
  TSI_SALT_BUCKETS: 'keys.saltBuckets',
  TSI_HTTP_HOST: 'http.host',
  TSI_HTTP_PORT: 'http.port',
  TSI_HTTP_AUTH_MODE: 'http.auth.mode',
  TSI_HTTP_CREDENTIALS_FILE: 'http.auth.credentialsFile',
  TSI_HTTP_CREDENTIALS: 'http.auth.credentials',
  TSI_HTTP_TLS_CERT_FILE: 'http.tls.certFile',
  TSI_HTTP_TLS_KEY_FILE: 'http.tls.keyFile',
  TSI_HTTP_TLS_CLIENT_CA_FILE: 'http.tls.clientCaFile',
  TSI_LOG_LEVEL: 'log.level',
  TSI_ROLLUP_TTL_SECONDS: 'tables.rollup.ttlSeconds',
  TSI_ROLLUP_TTL_BY_WINDOW: 'tables.rollup.ttlByWindow',
};

/** Keys taken verbatim from the environment and --set (never parsed as JSON). */
const RAW_STRING_KEYS = new Set(['hbase.auth.username', 'hbase.auth.password', 'hbase.auth.token', 'kafka.sasl.username', 'kafka.sasl.password']);

type Tree = Record<string, unknown>;

function setPath(tree: Tree, path: string, value: unknown): void {
  const parts = path.split('.');
  let node: Tree = tree;
  for (const part of parts.slice(0, -1)) {
    const next = node[part];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) node[part] = {};
    node = node[part] as Tree;
  }
  node[parts[parts.length - 1] ?? path] = value;
}

/** "16" → 16, "true" → true, '["a"]' → ["a"]; anything else stays a string. Lists may be comma-separated. */
function coerce(key: string, raw: string): unknown {
  const list = key === 'kafka.brokers' || key === 'hbase.restUrls';
  if (list && !raw.trimStart().startsWith('['))
    return raw
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
  if (RAW_STRING_KEYS.has(key)) return raw; // a password of digits stays a string
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

function readFile(path: string): Tree {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigError(`config file ${path}: ${(e as Error).message}`, { cause: e });
  }
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new InputError('top level must be an object');
    return parsed as Tree;
  } catch (e) {
    throw new ConfigError(`config file ${path} is not valid JSON: ${(e as Error).message}`, { cause: e });
  }
}

export interface ConfigSources {
  readonly file?: string | undefined;
  readonly env?: NodeJS.ProcessEnv;
  /** `key=value` pairs from `--set`, e.g. `keys.saltBuckets=32` */
  readonly sets?: readonly string[];
}

/** hbase.restUrl and hbase.restUrls are two forms of one setting: within one source only one may be
 * given; a later source's form replaces an earlier one's (env TSI_HBASE_REST_URL, then --set hbase.restUrls). */
const GATEWAY_KEYS = ['restUrl', 'restUrls'] as const;

function gatewayForms(tree: Tree): string[] {
  const h = tree['hbase'];
  if (typeof h !== 'object' || h === null) return [];
  return GATEWAY_KEYS.filter((k) => (h as Tree)[k] !== undefined);
}

function applySource(tree: Tree, source: string, pairs: readonly (readonly [string, unknown])[]): void {
  const forms = new Set(pairs.map(([key]) => key).filter((key) => key === 'hbase.restUrl' || key === 'hbase.restUrls'));
  if (forms.size > 1) throw new ConfigError(`${source}: set one of hbase.restUrl and hbase.restUrls`);
  if (forms.size === 1) {
    const h = tree['hbase'];
    if (typeof h === 'object' && h !== null) {
      delete (h as Tree)['restUrl'];
      delete (h as Tree)['restUrls'];
    }
  }
  for (const [key, value] of pairs) setPath(tree, key, value);
}

export function loadConfig(sources: ConfigSources = {}): Config {
  const env = sources.env ?? {};
  const file = sources.file ?? env['TSI_CONFIG'];
  const tree: Tree = file === undefined || file === '' ? {} : readFile(file);
  if (gatewayForms(tree).length > 1) throw new ConfigError(`config file ${file ?? ''}: set one of hbase.restUrl and hbase.restUrls`);
  const fromEnv = Object.entries(ENV_KEYS).flatMap(([name, key]) => {
    const raw = env[name];
    return raw === undefined || raw === '' ? [] : [[key, coerce(key, raw)] as const];
  });
  applySource(tree, 'environment', fromEnv);
  const fromSets = (sources.sets ?? []).map((pair) => {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new ConfigError(`--set ${pair}: expected key=value`);
    const key = pair.slice(0, eq);
    return [key, coerce(key, pair.slice(eq + 1))] as const;
  });
  // flags apply in order, so a later --set of the other form wins
  for (const pair of fromSets) applySource(tree, '--set', [pair]);
  const result = configSchema.safeParse(tree);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new ConfigError(`invalid configuration${file === undefined ? '' : ` (file ${file})`}:\n${lines.join('\n')}`);
  }
  const cfg = result.data;
  if (cfg.hbase.retryBaseMs > cfg.hbase.retryMaxMs) throw new ConfigError('hbase.retryBaseMs must not exceed hbase.retryMaxMs');
  for (const t of cfg.index.tags) if (t.includes('\u0000')) throw new ConfigError(`index.tags: "${t}" contains NUL`);
  const sp = cfg.keys.spread;
  try {
    spreadTiming(sp);
  } catch (err) {
    throw new ConfigError(`${(err as Error).message}: every instance must see an epoch before its first event`, { cause: err });
  }
  checkHBaseSecurity(cfg.hbase);
  checkKafkaSecurity(cfg.kafka);
  if (sp.maxK !== null && sp.maxK > cfg.keys.saltBuckets)
    throw new ConfigError(`keys.spread.maxK (${sp.maxK}) must not exceed keys.saltBuckets (${cfg.keys.saltBuckets})`);
  checkRollupRetention(cfg);
  return cfg;
}

/** One rollup window size: its family in the rollup table and the TTL of that family. */
export interface WindowRetention {
  /** as configured in rollup.windows, e.g. "1h" */
  readonly window: string;
  readonly seconds: number;
  /** the family of its summaries, e.g. "r1h" (docs/RETENTION.md) */
  readonly family: string;
  /** TTL of the family: tables.rollup.ttlByWindow, else tables.rollup.ttlSeconds; null: forever */
  readonly ttlSeconds: number | null;
}

/** Every configured window size with its family and TTL, finest first (windows that are not durations are left out: loadConfig refuses them). */
export function windowRetention(cfg: {
  readonly rollup: Pick<Config['rollup'], 'windows'>;
  readonly tables: { readonly rollup: Pick<Config['tables']['rollup'], 'ttlSeconds' | 'ttlByWindow'> };
}): WindowRetention[] {
  const t = cfg.tables.rollup;
  const byWindow = new Map(Object.entries(t.ttlByWindow).map(([w, ttl]) => [durationSeconds(w), ttl]));
  return cfg.rollup.windows
    .map((window) => ({ window, seconds: durationSeconds(window) }))
    .filter((w): w is { window: string; seconds: number } => w.seconds !== undefined)
    .sort((a, b) => a.seconds - b.seconds)
    .map(({ window, seconds }) => ({
      window,
      seconds,
      family: rollupWindowFamily(seconds),
      ttlSeconds: byWindow.has(seconds) ? (byWindow.get(seconds) ?? null) : t.ttlSeconds,
    }));
}

/** The point blocks' TTL (s): tables.rollup.pointsTtlSeconds, "data": the data table's; null: forever (docs/RETENTION.md). */
export function pointsTtlSeconds(cfg: {
  readonly tables: { readonly data: Pick<Config['tables']['data'], 'ttlSeconds'>; readonly rollup: Pick<Config['tables']['rollup'], 'pointsTtlSeconds'> };
}): number | null {
  const own = cfg.tables.rollup.pointsTtlSeconds;
  return own === 'data' ? cfg.tables.data.ttlSeconds : own;
}

/** tables.rollup.ttlByWindow names only configured windows, once each; the marker family is not a window family. */
function checkRollupRetention(cfg: Config): void {
  const windows = new Map(cfg.rollup.windows.map((w) => [durationSeconds(w), w]));
  const seen = new Map<number, string>();
  for (const key of Object.keys(cfg.tables.rollup.ttlByWindow)) {
    const field = `tables.rollup.ttlByWindow.${key}`;
    const seconds = durationSeconds(key);
    if (seconds === undefined) throw new ConfigError(`${field}: "${key}" is not a window size like 1h or 1d`);
    if (!windows.has(seconds)) throw new ConfigError(`${field}: window ${key} is not in rollup.windows (${cfg.rollup.windows.join(', ')})`);
    const twice = seen.get(seconds);
    if (twice !== undefined) throw new ConfigError(`${field}: the same window size as tables.rollup.ttlByWindow.${twice}`);
    seen.set(seconds, key);
  }
  const { family, pointsFamily } = cfg.tables.rollup;
  if (isRollupWindowFamily(family)) {
    throw new ConfigError(`tables.rollup.family: "${family}" has the form of a window size's summary family (r<size>); pick another name, e.g. "d"`);
  }
  if (isRollupWindowFamily(pointsFamily) || pointsFamily === family) {
    throw new ConfigError(
      `tables.rollup.pointsFamily: "${pointsFamily}" is the marker family or has the form of a window size's summary family (r<size>); pick another name, e.g. "p"`,
    );
  }
}

/** The REST gateways: hbase.restUrls, or the one hbase.restUrl. */
export function hbaseRestUrls(h: Pick<Config['hbase'], 'restUrl' | 'restUrls'>): string[] {
  return h.restUrls.length > 0 ? [...h.restUrls] : [h.restUrl];
}

/** Every gateway the same scheme and path (one client prefix, one TLS setting), none twice (one metric label each). */
function checkGateways(h: Config['hbase']): void {
  const key = h.restUrls.length > 0 ? 'hbase.restUrls' : 'hbase.restUrl';
  const urls = hbaseRestUrls(h).map((u) => new URL(u));
  const [first] = urls;
  if (first === undefined) return;
  for (const u of urls) {
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ConfigError(`${key}: ${u.origin} is not http or https`);
    // Never echo them: the message names the gateway by origin only.
    if (u.username !== '' || u.password !== '')
      throw new ConfigError(
        `${key}: ${u.origin}: credentials in the URL are refused (URLs end up in logs, errors and metric labels); use hbase.auth (username with passwordFile or TSI_HBASE_PASSWORD)`,
      );
    if (u.protocol !== first.protocol) throw new ConfigError(`${key}: every gateway must use the same scheme (${first.protocol} and ${u.protocol})`);
    if (u.pathname.replace(/\/+$/, '') !== first.pathname.replace(/\/+$/, ''))
      throw new ConfigError(`${key}: every gateway must have the same path (${first.pathname} and ${u.pathname})`);
    if (u.search !== '' || u.hash !== '') throw new ConfigError(`${key}: ${u.origin}${u.pathname}: no query or fragment`);
  }
  const origins = urls.map((u) => u.origin);
  const twice = origins.find((o, i) => origins.indexOf(o) !== i);
  if (twice !== undefined) throw new ConfigError(`${key}: ${twice} is listed twice`);
}

/** Settings that only make sense together; each error names the key to fix. */
function checkHBaseSecurity(h: Config['hbase']): void {
  checkGateways(h);
  const tlsSet = Object.entries(h.tls)
    .filter(([, v]) => v !== null)
    .map(([k]) => `hbase.tls.${k}`);
  const key = h.restUrls.length > 0 ? 'hbase.restUrls' : 'hbase.restUrl';
  const plain = hbaseRestUrls(h).find((u) => !u.startsWith('https:'));
  if (tlsSet.length > 0 && plain !== undefined) throw new ConfigError(`${tlsSet.join(', ')} set, but ${key} is not https: ${plain}`);
  if ((h.tls.certFile === null) !== (h.tls.keyFile === null)) throw new ConfigError('hbase.tls.certFile and hbase.tls.keyFile go together (mutual TLS)');
  if (h.tls.keyPassphraseFile !== null && h.tls.keyFile === null) throw new ConfigError('hbase.tls.keyPassphraseFile set without hbase.tls.keyFile');
  const a = h.auth;
  const one = (x: string | null, y: string | null, what: string): void => {
    if ((x === null) === (y === null)) throw new ConfigError(`hbase.auth.type is ${a.type}: set exactly one of hbase.auth.${what} and hbase.auth.${what}File`);
  };
  if (a.type === 'basic') {
    if (a.username === null) throw new ConfigError('hbase.auth.type is basic: hbase.auth.username is required');
    one(a.password, a.passwordFile, 'password');
  }
  if (a.type === 'bearer') one(a.token, a.tokenFile, 'token');
  const usedBy = (k: 'username' | 'password' | 'passwordFile' | 'token' | 'tokenFile' | 'servicePrincipal'): string =>
    k === 'servicePrincipal' ? 'spnego' : k.startsWith('token') ? 'bearer' : 'basic';
  const unused = (['username', 'password', 'passwordFile', 'token', 'tokenFile', 'servicePrincipal'] as const).filter(
    (k) => a[k] !== null && usedBy(k) !== a.type,
  );
  if (unused.length > 0) throw new ConfigError(`hbase.auth.${unused[0] ?? ''} is set but hbase.auth.type is ${a.type}`);
}

function checkKafkaSecurity(k: Config['kafka']): void {
  const files = (['caFile', 'certFile', 'keyFile', 'keyPassphraseFile', 'serverName'] as const).filter((f) => k.tls[f] !== null);
  if (files.length > 0 && !k.tls.enabled) throw new ConfigError(`kafka.tls.${files[0] ?? ''} is set but kafka.tls.enabled is false`);
  if ((k.tls.certFile === null) !== (k.tls.keyFile === null)) throw new ConfigError('kafka.tls.certFile and kafka.tls.keyFile go together (mutual TLS)');
  if (k.tls.keyPassphraseFile !== null && k.tls.keyFile === null) throw new ConfigError('kafka.tls.keyPassphraseFile set without kafka.tls.keyFile');
  const s = k.sasl;
  const userPass = s.mechanism === 'plain' || s.mechanism.startsWith('scram');
  if (userPass) {
    if (s.username === null) throw new ConfigError(`kafka.sasl.mechanism is ${s.mechanism}: kafka.sasl.username is required`);
    if ((s.password === null) === (s.passwordFile === null))
      throw new ConfigError(`kafka.sasl.mechanism is ${s.mechanism}: set exactly one of kafka.sasl.password and kafka.sasl.passwordFile`);
  }
  if (s.mechanism === 'oauthbearer' && (s.oauthTokenFile === null) === (s.oauthTokenCommand === null)) {
    throw new ConfigError('kafka.sasl.mechanism is oauthbearer: set exactly one of kafka.sasl.oauthTokenFile and kafka.sasl.oauthTokenCommand');
  }
  const unused = (['username', 'password', 'passwordFile', 'oauthTokenFile', 'oauthTokenCommand'] as const).filter(
    (f) => s[f] !== null && (f.startsWith('oauth') ? s.mechanism !== 'oauthbearer' : !userPass),
  );
  if (unused.length > 0) throw new ConfigError(`kafka.sasl.${unused[0] ?? ''} is set but kafka.sasl.mechanism is ${s.mechanism}`);
}
