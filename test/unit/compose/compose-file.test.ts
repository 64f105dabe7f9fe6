// docker-compose.yml and the k8s deployment as written: every key once per compose service (docker-compose 1.29 keeps the last of
// two silently, compose v2 refuses the file), every service hardened (capabilities dropped, a memory
// limit; a read-only root filesystem but for Grafana), and Grafana with its admin password from a
// secret file besides the datasource's CA and Basic password. The compose smoke test runs the file;
// Grafana never runs here (no registry), so its part is checked as text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../../scripts/lib/stack/config.ts';

const compose = readFileSync(join(projectRoot, 'docker-compose.yml'), 'utf8');

/** The services' blocks, by name: the lines from `  name:` up to the next top-level or service key. */
function services(): Map<string, string[]> {
  const lines = compose.split('\n');
  const out = new Map<string, string[]>();
  let current: string[] | undefined;
  let inServices = false;
  for (const line of lines) {
    if (/^\S/.test(line)) {
      inServices = line.startsWith('services:');
      current = undefined;
      continue;
    }
    if (!inServices) continue;
    const name = /^ {2}([a-z][a-z0-9-]*):\s*$/.exec(line)?.[1];
    if (name !== undefined) out.set(name, (current = []));
    else current?.push(line);
  }
  return out;
}

/** The keys of a service's own mapping (four spaces in), in order. */
const keysOf = (block: readonly string[]): string[] => block.flatMap((l) => /^ {4}([a-z_<][a-z_<]*):/.exec(l)?.[1] ?? []);

/** The items of a service's list under `key` (`      - item`). */
function listOf(block: readonly string[], key: string): string[] {
  const at = block.findIndex((l) => l === `    ${key}:`);
  if (at < 0) return [];
  const out: string[] = [];
  for (const l of block.slice(at + 1)) {
    const item = /^ {6}- (\S+)\s*$/.exec(l)?.[1];
    if (item === undefined) break;
    out.push(item);
  }
  return out;
}

void test('docker-compose.yml: no service names a key twice', () => {
  const all = services();
  assert.ok(all.size >= 6, `services found: ${[...all.keys()].join(', ')}`);
  for (const [name, block] of all) {
    const keys = keysOf(block);
    const twice = keys.filter((k, i) => keys.indexOf(k) !== i);
    assert.deepEqual(twice, [], `${name}: ${twice.join(', ')} given twice`);
  }
});

void test('docker-compose.yml: every service drops every capability and has a memory limit; all but Grafana a read-only root filesystem', () => {
  const hardened = /^x-hardened: &hardened\n(?: {2}.*\n)+/m.exec(compose)?.[0] ?? '';
  assert.match(hardened, /cap_drop: \[ALL\]/);
  assert.match(hardened, /read_only: true/);
  for (const [name, block] of services()) {
    const keys = keysOf(block);
    assert.ok(keys.includes('mem_limit'), `${name}: mem_limit`);
    if (name === 'grafana') {
      assert.ok(keys.includes('cap_drop') && block.some((l) => l.includes('cap_drop: [ALL]')), 'grafana: cap_drop [ALL]');
      continue;
    }
    assert.ok(keys.includes('<<') && block.some((l) => l.includes('<<: *hardened')), `${name}: the hardened anchor (capabilities, read-only root)`);
  }
});

void test("docker-compose.yml: Grafana reads its admin password from a secret file (no default) and mounts the datasource's CA and Basic password", () => {
  const grafana = services().get('grafana');
  assert.ok(grafana !== undefined);
  assert.deepEqual(listOf(grafana, 'secrets').sort(), ['grafana-admin-password', 'grafana-password', 'http-ca.crt']);
  assert.ok(grafana.some((l) => /GF_SECURITY_ADMIN_PASSWORD__FILE: \/run\/secrets\/grafana-admin-password/.test(l)));
  assert.ok(!grafana.some((l) => /GF_SECURITY_ADMIN_PASSWORD:/.test(l)), 'no password in the file itself');
  assert.match(compose, /^ {2}grafana-admin-password:\n {4}file: \.\/secrets\//m, 'the secret is a file');
});

void test('deploy/k8s: the ingest container has a memory limit, a read-only root filesystem, no privilege escalation and no capability; /tmp is an emptyDir', () => {
  const deployment = readFileSync(join(projectRoot, 'deploy/k8s/deployment.yaml'), 'utf8');
  assert.match(deployment, /limits:\n\s+cpu: \S+\n\s+memory: \d+Mi/);
  assert.match(
    deployment,
    /securityContext:\n\s+allowPrivilegeEscalation: false\n\s+readOnlyRootFilesystem: true\n\s+privileged: false\n\s+capabilities:\n\s+drop: \["ALL"\]/,
  );
  assert.match(deployment, /- name: tmp\n\s+emptyDir:/);
  assert.match(deployment, /path: \/readyz/, 'readiness probes /readyz');
});
