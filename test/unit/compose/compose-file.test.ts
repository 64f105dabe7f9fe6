// docker-compose.yml and the k8s deployment as written: every key once per compose service (docker-compose 1.29 keeps the last of
// two silently, compose v2 refuses the file), every service hardened (capabilities dropped, a memory
// limit; a read-only root filesystem but for Grafana), and Grafana with its admin password from a
// secret file besides the datasource's CA and Basic password; the two roles of the service as two
// services with their own limits, probes and ports behind the same credentials, both scraped. The
// compose smoke test runs the file; Grafana never runs here (no registry), so its part is checked as text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../../scripts/lib/stack/config.ts';
import { APP_SERVICES, ROLE_SERVICES } from '../../../scripts/lib/images/compose.ts';
import { PORT_NAMES, PUBLISHED } from '../../../scripts/lib/images/compose-ports.ts';
import { SERVER_NAMES } from '../../../scripts/lib/images/compose-secrets.ts';
import { QUERY_NODE_OPTIONS } from '../../../src/runtime/node-options.ts';
import { parseYaml } from '../../support/yaml-subset.ts';

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

/** The `KEY: value` pairs of a service's mapping under `key` (`      KEY: value`). */
function mapOf(block: readonly string[], key: string): Map<string, string> {
  const at = block.findIndex((l) => l === `    ${key}:`);
  const out = new Map<string, string>();
  if (at < 0) return out;
  for (const l of block.slice(at + 1)) {
    const m = /^ {6}([A-Za-z_][\w.-]*):\s*(.*?)\s*$/.exec(l);
    if (m === null) {
      if (/^ {6}/.test(l) || l.trim() === '' || l.trim().startsWith('#')) continue;
      break;
    }
    out.set(m[1] ?? '', m[2] ?? '');
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

void test('docker-compose.yml: the ingest and query roles are two services, each with its own role, memory limit, probe and port, behind the same credentials', () => {
  const all = services();
  assert.deepEqual([...ROLE_SERVICES], ['ingest', 'query']);
  for (const name of APP_SERVICES)
    assert.ok(
      all.get(name)?.some((l) => l === '    profiles: ["app"]'),
      `${name}: a service of profile app`,
    );
  const limits = new Map<string, string>();
  for (const role of ROLE_SERVICES) {
    const block = all.get(role);
    assert.ok(block !== undefined, `service ${role}`);
    assert.ok(block.includes('    image: tsingest:dev'), `${role}: the service image`);
    assert.equal(mapOf(block, 'environment').get('TSI_ROLE'), role, `${role}: TSI_ROLE`);
    assert.equal(mapOf(block, 'environment').get('TSI_CONFIG'), '/app/config/compose.json');
    limits.set(role, block.find((l) => l.startsWith('    mem_limit: '))?.slice('    mem_limit: '.length) ?? '');
    const health = mapOf(block, 'healthcheck');
    assert.match(health.get('test') ?? '', /path:'\/readyz'/, `${role}: healthy means ready`);
    assert.ok(health.has('interval') && health.has('retries'), `${role}: its own probe`);
    assert.deepEqual(listOf(block, 'secrets').sort(), ['http-credentials.json', 'http-tls.crt', 'http-tls.key'], `${role}: the same port secrets`);
  }
  assert.deepEqual(Object.fromEntries(limits), { ingest: '512m', query: '2g' }, 'each role its own memory limit');
  // the published ports: the variables and defaults of scripts/lib/images/compose-ports.ts
  for (const n of PORT_NAMES) {
    const { variable, service, port } = PUBLISHED[n];
    const published = listOf(all.get(service) ?? [], 'ports');
    assert.ok(
      published.some((p) => p.startsWith(`"127.0.0.1:\${${variable}:-${port}}:`)),
      `${service}: publishes 127.0.0.1:\${${variable}:-${port}} (${published.join(' ')})`,
    );
  }
  const query = all.get('query') ?? [];
  assert.equal(mapOf(query, 'environment').get('NODE_OPTIONS'), QUERY_NODE_OPTIONS, "query: the query role's heap flags");
  assert.equal(mapOf(all.get('ingest') ?? [], 'environment').get('NODE_OPTIONS'), undefined, "ingest: the image's heap flags");
  const dependsOn = mapOf(query, 'depends_on');
  assert.deepEqual([...dependsOn.keys()], ['hbase'], 'query: HBase only, no Kafka (no consumer group, no topics)');
  assert.deepEqual(
    SERVER_NAMES.filter((n) => n.startsWith('DNS:')),
    ['DNS:ingest', 'DNS:query', 'DNS:localhost'],
    "one certificate names both services (Prometheus's and Grafana's server names)",
  );
});

void test('deploy/prometheus/prometheus.yml scrapes both roles (one job each, over TLS with the token file); Prometheus waits for both', () => {
  type Job = { job_name: string; tls_config?: { server_name?: string }; static_configs?: { targets: string[]; labels: Record<string, string> }[] };
  const prom = parseYaml(readFileSync(join(projectRoot, 'deploy/prometheus/prometheus.yml'), 'utf8')) as { scrape_configs: Job[] };
  const jobs = new Map(prom.scrape_configs.map((j) => [j.job_name, j]));
  for (const [job, role] of [
    ['tsingest', 'ingest'],
    ['tsingest-query', 'query'],
  ] as const) {
    const j = jobs.get(job);
    const [targets] = j?.static_configs ?? [];
    assert.ok(j !== undefined && targets !== undefined, `job ${job}`);
    assert.deepEqual(targets.targets, [`${role}:9464`], `${job}: the ${role} service`);
    assert.deepEqual(targets.labels, { service: 'tsingest', role });
    assert.equal(j.tls_config?.server_name, role);
  }
  const matcher = /up\{job=~"([^"]+)"\}/.exec(readFileSync(join(projectRoot, 'deploy/prometheus/rules/tsingest-alerts.yml'), 'utf8'))?.[1] ?? '';
  for (const job of ['tsingest', 'tsingest-query', 'tsingest-metrics'])
    assert.match(job, new RegExp(`^(?:${matcher})$`), `TsingestInstanceDown watches job ${job}`);
  const dependsOn = listOf(services().get('prometheus') ?? [], 'depends_on');
  assert.deepEqual(dependsOn, ['ingest', 'query']);
});
