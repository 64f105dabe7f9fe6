// The example configurations in config/ are the ones README, compose and k8s use: each must pass the
// config schema (which is strict, so a misspelt key fails), and each must really be used where the
// docs say it is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadConfig } from '../../../src/runtime/config.ts';
import { SERVICE_NODE_OPTIONS } from '../../../src/runtime/node-options.ts';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const CONFIG_DIR = join(ROOT, 'config');
const read = (rel: string): string => readFileSync(join(ROOT, rel), 'utf8');

const examples = readdirSync(CONFIG_DIR).filter((f) => f.endsWith('.json')).sort();

test('config/ holds the local, compose and k8s examples', () => {
  assert.deepEqual(examples, ['compose.json', 'k8s.json', 'local.json']);
});

for (const file of examples) {
  test(`config/${file} passes the config schema with no environment`, () => {
    const cfg = loadConfig({ file: join(CONFIG_DIR, file), env: {} });
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
  assert.match(read('scripts/start.ts') + read('scripts/lib/demo.ts'), /config\/local\.json|'config', 'local\.json'/);
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

test('the image and the k8s deployment run the service with the heap flags of src/runtime/node-options.ts', () => {
  assert.ok(read('deploy/service/Dockerfile').includes(`NODE_OPTIONS="${SERVICE_NODE_OPTIONS}"`), 'Dockerfile ENV NODE_OPTIONS');
  assert.match(read('deploy/k8s/deployment.yaml'), new RegExp(`- name: NODE_OPTIONS\\n\\s+value: ${SERVICE_NODE_OPTIONS.replaceAll('-', '\\-')}\\n`));
  assert.doesNotMatch(read('docker-compose.yml'), /NODE_OPTIONS/, 'compose inherits the image ENV');
});
