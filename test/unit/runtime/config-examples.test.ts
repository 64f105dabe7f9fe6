// The example configurations in config/ are the ones README, compose and k8s use: each must pass the
// config schema (which is strict, so a misspelt key fails), and each must really be used where the
// docs say it is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadConfig } from '../../../src/runtime/config.ts';
import { QUERY_NODE_OPTIONS, SERVICE_NODE_OPTIONS } from '../../../src/runtime/node-options.ts';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const CONFIG_DIR = join(ROOT, 'config');
const read = (rel: string): string => readFileSync(join(ROOT, rel), 'utf8');

const examples = readdirSync(CONFIG_DIR)
  .filter((f) => f.endsWith('.json'))
  .sort();

test('config/ holds the local, compose, secured compose and k8s examples', () => {
  assert.deepEqual(examples, ['compose-secure.json', 'compose.json', 'k8s.json', 'local.json']);
});

/** The TSI_* variables deploy/k8s gives the pod besides the config file (configMapGenerator literals and env values of the Deployment). */
function podEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const m of read('deploy/k8s/kustomization.yaml').matchAll(/^\s+- (TSI_[A-Z_]+)=(\S+)$/gm)) env[m[1] ?? ''] = m[2] ?? '';
  for (const m of read('deploy/k8s/deployment.yaml').matchAll(/- name: (TSI_[A-Z_]+)\n\s+value: "?([^"\n]+)"?\n/g)) env[m[1] ?? ''] = m[2] ?? '';
  return env;
}

/** The TSI_* variables docker-compose.secure.yml gives the ingest service (the defaults of its ${VAR:-default}). */
function secureComposeEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const m of read('docker-compose.secure.yml').matchAll(/^\s+(TSI_[A-Z_]+): (?:\$\{[A-Z_]+:-([^}]+)\}|(\S+))$/gm)) env[m[1] ?? ''] = m[2] ?? m[3] ?? '';
  return env;
}

const ENVIRONMENTS: Readonly<Record<string, { readonly what: string; readonly env: () => Record<string, string> }>> = {
  'k8s.json': { what: "the pod's environment from deploy/k8s", env: podEnv },
  'compose-secure.json': { what: 'the environment of docker-compose.secure.yml', env: secureComposeEnv },
};

for (const file of examples) {
  const source = ENVIRONMENTS[file];
  test(`config/${file} passes the config schema with ${source?.what ?? 'no environment'}`, () => {
    const cfg = loadConfig({ file: join(CONFIG_DIR, file), env: source?.env() ?? {} });
    assert.ok(cfg.kafka.topic.length > 0);
    assert.ok(cfg.tables.data.name.length > 0);
  });
}

test('a misspelt key in an example would fail (the schema is strict)', () => {
  const tree = JSON.parse(readFileSync(join(CONFIG_DIR, 'local.json'), 'utf8')) as Record<string, unknown>;
  const dir = mkdtempSync(join(tmpdir(), 'tsi-config-'));
  const bad = join(dir, 'typo.json');
  writeFileSync(bad, JSON.stringify({ ...tree, kafka: { ...(tree['kafka'] as object), topc: 'x' } }));
  try {
    assert.throws(() => loadConfig({ file: bad, env: {} }), /kafka/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('npm start and the README use config/local.json', () => {
  assert.match(read('scripts/start.ts') + read('scripts/lib/demo/demo.ts'), /config\/local\.json|'config', 'local\.json'/);
  assert.match(read('README.md'), /config\/local\.json/);
});

test('docker-compose.yml points the service at config/compose.json, which the image carries', () => {
  const compose = read('docker-compose.yml');
  assert.match(compose, /TSI_CONFIG: \/app\/config\/compose\.json/);
  assert.match(read('deploy/service/Dockerfile'), /COPY config\/ \.\/config\//);
});

test('the k8s manifests mount config/k8s.json as the file TSI_CONFIG names', () => {
  assert.match(read('config/kustomization.yaml'), /ingest\.json=k8s\.json/);
  assert.match(read('deploy/k8s/kustomization.yaml'), /- \.\.\/\.\.\/config/);
  const deployment = read('deploy/k8s/deployment.yaml');
  assert.match(deployment, /name: TSI_CONFIG\s+value: \/etc\/tsingest\/ingest\.json/);
  assert.match(deployment, /mountPath: \/etc\/tsingest/);
});

test('the image and the k8s deployment run the service with the heap flags of src/runtime/node-options.ts, the query role with its own', () => {
  const nodeOptions = (flags: string): RegExp => new RegExp(`- name: NODE_OPTIONS\\n\\s+value: ${flags.replaceAll('-', '\\-')}\\n`);
  assert.ok(read('deploy/service/Dockerfile').includes(`NODE_OPTIONS="${SERVICE_NODE_OPTIONS}"`), 'Dockerfile ENV NODE_OPTIONS');
  assert.match(read('deploy/k8s/deployment.yaml'), nodeOptions(SERVICE_NODE_OPTIONS));
  assert.match(read('deploy/k8s/query-deployment.yaml'), nodeOptions(QUERY_NODE_OPTIONS));
  const compose = read('docker-compose.yml');
  assert.deepEqual(
    [...compose.matchAll(/NODE_OPTIONS: (.*)$/gm)].map((m) => m[1]),
    [QUERY_NODE_OPTIONS],
    'compose: ingest inherits the image ENV, query sets its own',
  );
});

/** name → mountPath of the Deployment's volumeMounts; name → { secretName, item paths } of its secret volumes. */
function k8sVolumes(): { mounts: Map<string, string>; secrets: Map<string, { secretName: string; paths: string[] }> } {
  const deployment = read('deploy/k8s/deployment.yaml');
  const mounts = new Map([...deployment.matchAll(/- name: (\S+)\n\s+mountPath: (\S+)/g)].map((m) => [m[1] ?? '', m[2] ?? '']));
  const volumes = deployment.slice(deployment.indexOf('\n      volumes:\n'));
  const secrets = new Map<string, { secretName: string; paths: string[] }>();
  for (const chunk of volumes.split(/\n {8}- name: /).slice(1)) {
    const secretName = /secretName: (\S+)/.exec(chunk)?.[1];
    if (secretName === undefined) continue;
    secrets.set(chunk.split('\n')[0] ?? '', { secretName, paths: [...chunk.matchAll(/- key: \S+\n\s+path: (\S+)/g)].map((m) => m[1] ?? '') });
  }
  return { mounts, secrets };
}

/** Every non-null setting whose key ends in File, as [dotted key, path]. */
function fileSettings(node: unknown, prefix = ''): [string, string][] {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return [];
  return Object.entries(node).flatMap(([k, v]): [string, string][] =>
    k.endsWith('File') && typeof v === 'string' ? [[`${prefix}${k}`, v]] : fileSettings(v, `${prefix}${k}.`),
  );
}

test('k8s: SASL_SSL Kafka and an HTTPS gateway with credentials from files that Secret volumes mount, nothing secret in the ConfigMaps', () => {
  const cfg = loadConfig({ file: join(CONFIG_DIR, 'k8s.json'), env: podEnv() });
  assert.equal(cfg.kafka.tls.enabled, true);
  assert.equal(cfg.kafka.sasl.mechanism, 'scram-sha-512');
  assert.match(cfg.hbase.restUrl, /^https:\/\//);
  assert.equal(cfg.hbase.auth.type, 'basic');
  assert.equal(cfg.kafka.sasl.password, null, 'no password in the config file or the environment');
  assert.equal(cfg.hbase.auth.password, null, 'no password in the config file or the environment');
  assert.doesNotMatch(read('deploy/k8s/kustomization.yaml') + read('deploy/k8s/deployment.yaml'), /TSI_(KAFKA|HBASE)_(PASSWORD|TOKEN)/);

  const files = fileSettings(cfg);
  assert.deepEqual(files.map(([k]) => k).sort(), [
    'hbase.auth.passwordFile',
    'hbase.tls.caFile',
    'http.auth.credentialsFile',
    'http.tls.certFile',
    'http.tls.keyFile',
    'kafka.sasl.passwordFile',
    'kafka.tls.caFile',
  ]);
  const { mounts, secrets } = k8sVolumes();
  for (const [key, path] of files) {
    const at = path.lastIndexOf('/');
    const volume = [...mounts].find(([, mountPath]) => mountPath === path.slice(0, at))?.[0];
    assert.ok(volume !== undefined, `${key} (${path}): no volumeMount at ${path.slice(0, at)}`);
    const secret = secrets.get(volume);
    assert.ok(secret !== undefined, `${key} (${path}): volume ${volume} is not a Secret volume`);
    assert.ok(
      secret.paths.includes(path.slice(at + 1)),
      `${key} (${path}): Secret ${secret.secretName} (volume ${volume}) has no item with path ${path.slice(at + 1)}`,
    );
  }
  assert.deepEqual([...secrets.values()].map((v) => v.secretName).sort(), ['tsingest-hbase', 'tsingest-http', 'tsingest-kafka']);
  const deployment = read('deploy/k8s/deployment.yaml');
  assert.equal([...deployment.matchAll(/scheme: HTTPS/g)].length, 3, 'the three probes use HTTPS');
  assert.match(read('deploy/k8s/servicemonitor.yaml'), /scheme: https[\s\S]*type: Bearer[\s\S]*tlsConfig:/, 'Prometheus scrapes over TLS with a bearer token');
});

test('docker-compose.secure.yml: SASL_SSL Kafka and an HTTPS gateway, every …File of config/compose-secure.json a compose secret of the ingest service, all but Kafka’s of the query service', () => {
  const override = read('docker-compose.secure.yml');
  assert.equal(secureComposeEnv()['TSI_CONFIG'], '/app/config/compose-secure.json');
  const cfg = loadConfig({ file: join(CONFIG_DIR, 'compose-secure.json'), env: secureComposeEnv() });
  assert.equal(cfg.kafka.tls.enabled, true);
  assert.equal(cfg.kafka.sasl.mechanism, 'scram-sha-512');
  assert.match(cfg.hbase.restUrl, /^https:\/\//);
  assert.equal(cfg.hbase.auth.type, 'basic');
  assert.doesNotMatch(override, /TSI_(KAFKA|HBASE)_(PASSWORD|TOKEN)/);
  const mountedBy = (from: string, to: string): Set<string | undefined> =>
    new Set([...override.slice(override.indexOf(from), override.indexOf(to)).matchAll(/^ {6}- (\S+)$/gm)].map((m) => m[1]));
  const ingest = mountedBy('\n  ingest:\n', '\n  query:\n');
  const query = mountedBy('\n  query:\n', '\nsecrets:\n');
  const defined = new Set([...override.slice(override.indexOf('\nsecrets:\n')).matchAll(/^ {2}(\S+):\n {4}file: /gm)].map((m) => m[1]));
  const files = fileSettings(cfg);
  assert.equal(files.length, 7);
  for (const [key, path] of files) {
    const name = path.replace(/^\/run\/secrets\//, '');
    assert.ok(path.startsWith('/run/secrets/') && ingest.has(name) && defined.has(name), `${key} (${path}): not a compose secret of the ingest service`);
    // the query role builds no Kafka client, so it never reads kafka.*'s files
    assert.equal(query.has(name), !key.startsWith('kafka.'), `${key} (${path}): ${key.startsWith('kafka.') ? 'a' : 'not a'} secret of the query service`);
  }
  assert.match(read('.gitignore'), /^\/secrets\/$/m, 'the secrets folder of the example is ignored by git');
});

test("docker-compose.yml: the service's port is HTTPS with hashed credentials, every …File of config/compose.json a compose secret; Prometheus scrapes with a bearer token file over TLS", () => {
  const compose = read('docker-compose.yml');
  const cfg = loadConfig({ file: join(CONFIG_DIR, 'compose.json'), env: {} });
  assert.notEqual(cfg.http.tls.certFile, null);
  assert.notEqual(cfg.http.auth.credentialsFile, null);
  assert.equal(cfg.http.auth.mode, 'auto');
  const defined = new Set([...compose.slice(compose.indexOf('\nsecrets:\n')).matchAll(/^ {2}(\S+):\n {4}file: \.\/secrets\//gm)].map((m) => m[1]));
  for (const [service, next] of [
    ['ingest', 'query'],
    ['query', 'prometheus'],
  ]) {
    const block = compose.slice(compose.indexOf(`\n  ${service}:\n`), compose.indexOf(`\n  ${next}:\n`));
    for (const [key, path] of fileSettings(cfg)) {
      const name = path.replace(/^\/run\/secrets\//, '');
      assert.ok(
        path.startsWith('/run/secrets/') && defined.has(name) && block.includes(`      - ${name}\n`),
        `${key} (${path}): not a compose secret of the ${service} service`,
      );
    }
  }
  const prom = read('deploy/prometheus/prometheus.yml');
  assert.match(prom, /scheme: https/);
  assert.match(prom, /credentials_file: \/run\/secrets\/prometheus-token/);
  assert.match(prom, /ca_file: \/run\/secrets\/http-ca\.crt/);
});
