// deploy/k8s as written, read with the YAML subset parser: the two roles of the service as two
// Deployments of one image (tsingest-ingest, tsingest-query), each with its role, replicas, resources,
// probes and heap flags; the same config and the same credentials of the service's port; the query
// pods without Kafka credentials (they never talk to Kafka); a Service for each, one ServiceMonitor
// scraping both, and every manifest listed in the kustomization. The manifests are rendered, not run
// on a cluster here (docs/ARCHITECTURE.md, "Known gaps").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../../scripts/lib/stack/config.ts';
import { QUERY_NODE_OPTIONS, SERVICE_NODE_OPTIONS } from '../../../src/runtime/node-options.ts';
import { parseYaml } from '../../support/yaml-subset.ts';

const K8S = join(projectRoot, 'deploy/k8s');
const doc = (file: string): unknown => parseYaml(readFileSync(join(K8S, file), 'utf8'));

interface Probe {
  httpGet: { path: string; port: string; scheme: string };
}
interface Container {
  name: string;
  ports: { name: string; containerPort: number }[];
  env: { name: string; value: string }[];
  startupProbe: Probe;
  livenessProbe: Probe;
  readinessProbe: Probe;
  resources: { requests: { cpu: string; memory: string }; limits: { cpu: string; memory: string } };
  securityContext: { readOnlyRootFilesystem: boolean; allowPrivilegeEscalation: boolean; capabilities: { drop: string[] } };
  volumeMounts: { name: string; mountPath: string }[];
}
interface Deployment {
  kind: string;
  metadata: { name: string; labels: Record<string, string> };
  spec: {
    replicas: number;
    selector: { matchLabels: Record<string, string> };
    template: {
      metadata: { labels: Record<string, string> };
      spec: { containers: Container[]; volumes: { name: string; secret?: { secretName: string }; configMap?: { name: string } }[] };
    };
  };
}
interface Service {
  metadata: { name: string };
  spec: { selector: Record<string, string>; ports: { name: string; port: number; targetPort: string }[] };
}

const ROLES = { ingest: 'deployment.yaml', query: 'query-deployment.yaml' } as const;
const mebibytes = (q: string): number => Number(/^(\d+)Mi$/.exec(q)?.[1] ?? Number(/^(\d+)Gi$/.exec(q)?.[1]) * 1024);

void test('deploy/k8s: ingest and query are two Deployments of one image, each with its role, replicas, resources and probes', () => {
  const memory: Record<string, number> = {};
  for (const [role, file] of Object.entries(ROLES)) {
    const d = doc(file) as Deployment;
    assert.equal(d.kind, 'Deployment');
    assert.equal(d.metadata.name, `tsingest-${role}`);
    const labels = { 'app.kubernetes.io/name': 'tsingest', 'app.kubernetes.io/component': role };
    assert.deepEqual(d.spec.selector.matchLabels, labels, `${file}: selects its own role's pods`);
    assert.deepEqual(d.spec.template.metadata.labels, labels);
    assert.ok(d.spec.replicas >= 2, `${file}: replicas`);
    const [c] = d.spec.template.spec.containers;
    assert.ok(c !== undefined);
    const env = new Map(c.env.map((e) => [e.name, e.value]));
    assert.equal(env.get('TSI_ROLE'), role, `${file}: TSI_ROLE`);
    assert.equal(env.get('TSI_CONFIG'), '/etc/tsingest/ingest.json', 'the one config file of config/k8s.json');
    assert.equal(env.get('NODE_OPTIONS'), role === 'query' ? QUERY_NODE_OPTIONS : SERVICE_NODE_OPTIONS, `${file}: the heap flags of its role`);
    assert.deepEqual(
      [c.startupProbe, c.livenessProbe, c.readinessProbe].map((p) => `${p.httpGet.scheme} ${p.httpGet.path} ${p.httpGet.port}`),
      ['HTTPS /healthz http-metrics', 'HTTPS /healthz http-metrics', 'HTTPS /readyz http-metrics'],
      `${file}: startup and liveness on /healthz, readiness on /readyz`,
    );
    assert.deepEqual(
      c.ports.map((p) => [p.name, p.containerPort]),
      [['http-metrics', 9464]],
    );
    assert.ok(c.resources.requests.memory !== '' && c.resources.limits.cpu !== '', `${file}: requests and limits`);
    memory[role] = mebibytes(c.resources.limits.memory);
    assert.ok(mebibytes(c.resources.requests.memory) <= memory[role], `${file}: requests within the limit`);
    assert.deepEqual(
      [c.securityContext.readOnlyRootFilesystem, c.securityContext.allowPrivilegeEscalation, c.securityContext.capabilities.drop],
      [true, false, ['ALL']],
    );
  }
  assert.deepEqual(memory, { ingest: 512, query: 2048 }, 'each role its own memory limit: a 160 MB heap for ingest, 1,536 MB for the reads');
});

void test('deploy/k8s: both roles behind the same credentials and config; the query pods get no Kafka credentials', () => {
  const secrets = (file: string): Map<string, string> => {
    const spec = (doc(file) as Deployment).spec.template.spec;
    const mounted = new Set(spec.containers[0]?.volumeMounts.map((m) => m.name));
    return new Map(spec.volumes.filter((v) => mounted.has(v.name)).map((v) => [v.name, v.secret?.secretName ?? v.configMap?.name ?? 'emptyDir']));
  };
  const ingest = secrets(ROLES.ingest);
  const query = secrets(ROLES.query);
  assert.equal(ingest.get('http-credentials'), 'tsingest-http');
  assert.equal(query.get('http-credentials'), 'tsingest-http', "the same port's certificate and hashed credentials");
  assert.equal(query.get('config'), ingest.get('config'));
  assert.equal(query.get('hbase-credentials'), 'tsingest-hbase');
  assert.equal(ingest.get('kafka-credentials'), 'tsingest-kafka');
  assert.equal(query.has('kafka-credentials'), false, 'a query pod never talks to Kafka');
});

void test('deploy/k8s: a Service per role, one ServiceMonitor scraping both, every manifest in the kustomization', () => {
  const services = [doc('service.yaml') as Service, doc('query-service.yaml') as Service];
  assert.deepEqual(
    services.map((s) => [s.metadata.name, s.spec.selector['app.kubernetes.io/component'], s.spec.ports[0]?.port, s.spec.ports[0]?.targetPort]),
    [
      ['tsingest-metrics', 'ingest', 9464, 'http-metrics'],
      ['tsingest-query', 'query', 9464, 'http-metrics'],
    ],
  );
  const monitor = doc('servicemonitor.yaml') as {
    spec: {
      selector: { matchLabels: Record<string, string>; matchExpressions: { key: string; operator: string; values: string[] }[] };
      endpoints: { port: string }[];
    };
  };
  assert.deepEqual(monitor.spec.selector.matchLabels, { 'app.kubernetes.io/name': 'tsingest' });
  assert.deepEqual(monitor.spec.selector.matchExpressions, [{ key: 'app.kubernetes.io/component', operator: 'In', values: ['ingest', 'query'] }]);
  assert.deepEqual(
    monitor.spec.endpoints.map((e) => e.port),
    ['http-metrics'],
  );
  const kustomization = doc('kustomization.yaml') as { resources: string[] };
  const manifests = readdirSync(K8S).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml');
  for (const f of manifests) assert.ok(kustomization.resources.includes(f), `${f} is applied by kustomization.yaml`);
});
