// The stored-series dashboard (scripts/dashboard/stored-series.ts) and the OpenTSDB datasource
// provisioning: the committed JSON is what the code builds, panels fit the grid, every target has the
// shape Grafana's OpenTSDB query editor saves and uses only the dashboard's variables, and both
// provisioning files (compose and Kubernetes) parse and point the datasource the dashboard uses at
// the service's HTTP port. The requests themselves: test/integration/series/grafana-replay.test.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  OPENTSDB_DATASOURCE,
  STORED_SERIES_FILE,
  STORED_SERIES_VARIABLES,
  buildStoredSeriesDashboard,
  renderStoredSeriesDashboard,
} from '../../../scripts/dashboard/stored-series.ts';
import { text, type JsonObject } from '../../../scripts/dashboard/grafana.ts';
import { arr, obj } from '../../support/json-shape.ts';
import { openTsdbDatasource, provisionedDatasources } from '../../support/grafana-provisioning.ts';
import { parseYaml } from '../../support/yaml-subset.ts';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');

void describe('dashboard stored-series', () => {
  const dashboard = buildStoredSeriesDashboard();
  const panels = arr(dashboard['panels']).map(obj);
  const targets = panels.flatMap((p) => arr(p['targets'] ?? []).map((t) => ({ panel: text(p['title']), target: obj(t) })));

  void it('the committed JSON is what scripts/dashboard generates (run `npm run dashboard`)', () => {
    assert.equal(readFileSync(join(ROOT, STORED_SERIES_FILE), 'utf8'), renderStoredSeriesDashboard());
  });

  void it('places panels inside the 24-column grid without overlaps', () => {
    const cells = new Set<string>();
    for (const p of panels) {
      const g = obj(p['gridPos']);
      const [x, y, w, h] = [g['x'], g['y'], g['w'], g['h']] as number[];
      assert.ok(x !== undefined && y !== undefined && w !== undefined && h !== undefined && x + w <= 24, text(p['title']));
      for (let cx = x; cx < x + w; cx++)
        for (let cy = y; cy < y + h; cy++) {
          assert.ok(!cells.has(`${cx},${cy}`), `${text(p['title'])} overlaps at ${cx},${cy}`);
          cells.add(`${cx},${cy}`);
        }
    }
  });

  void it('every target is an OpenTSDB editor target on the provisioned datasource', () => {
    assert.ok(targets.length >= 3);
    for (const { panel, target } of targets) {
      assert.deepEqual(target['datasource'], OPENTSDB_DATASOURCE, panel);
      for (const k of ['refId', 'aggregator', 'downsampleAggregator', 'downsampleFillPolicy', 'metric'])
        assert.equal(typeof target[k], 'string', `${panel}: ${k}`);
      for (const k of ['shouldComputeRate', 'isCounter', 'disableDownsampling']) assert.equal(typeof target[k], 'boolean', `${panel}: ${k}`);
      if (target['disableDownsampling'] !== true) assert.match(text(target['downsampleInterval']), /^\d+[smhd]$/, `${panel}: downsampleInterval`);
      for (const f of arr(target['filters']))
        assert.deepEqual(Object.keys(obj(f)), ['type', 'tagk', 'filter', 'groupBy'], `${panel}: filter keys as FilterSection saves them`);
      assert.equal(target['tags'], undefined, `${panel}: filters, not legacy tags`);
    }
  });

  void it("the brief's panels: hourly site means, one id raw, the hottest ids by count", () => {
    const by = (pred: (t: JsonObject) => boolean): boolean => targets.some(({ target }) => pred(target));
    const groupBy = (t: JsonObject, k: string): boolean => arr(t['filters']).some((f) => obj(f)['tagk'] === k && obj(f)['groupBy'] === true);
    assert.ok(by((t) => t['aggregator'] === 'avg' && t['downsampleInterval'] === '1h' && t['downsampleAggregator'] === 'avg' && groupBy(t, 'site')));
    assert.ok(by((t) => t['disableDownsampling'] === true && arr(t['filters']).some((f) => obj(f)['tagk'] === 'id' && obj(f)['filter'] === '$id')));
    assert.ok(by((t) => t['aggregator'] === 'sum' && t['downsampleAggregator'] === 'count' && groupBy(t, 'id')));
  });

  void it('variables are metrics() and tag_values() queries, and targets use only them', () => {
    const vars = arr(obj(dashboard['templating'])['list']).map(obj);
    assert.deepEqual(
      vars.map((v) => v['name']),
      [...STORED_SERIES_VARIABLES],
    );
    const queries = Object.fromEntries(vars.map((v) => [text(v['name']), text(v['query'])]));
    assert.deepEqual(queries, { metric: 'metrics()', site: 'tag_values($metric, site)', id: 'tag_values($metric, id)' });
    for (const v of vars) assert.deepEqual(v['datasource'], OPENTSDB_DATASOURCE);
    for (const { panel, target } of targets) {
      for (const m of JSON.stringify(target).matchAll(/\$(\w+)/g)) {
        const name = m[1] ?? '';
        assert.ok(name.startsWith('tag_') || (STORED_SERIES_VARIABLES as readonly string[]).includes(name), `${panel}: unknown variable $${name}`);
      }
    }
  });
});

void describe('OpenTSDB datasource provisioning', () => {
  void it("compose: the query service's HTTPS port with Basic auth, version 2.3, seconds, a numeric lookup limit; Prometheus kept", () => {
    const file = join(ROOT, 'deploy/grafana/provisioning/datasources/opentsdb.yml');
    const ds = openTsdbDatasource(file);
    assert.deepEqual(ds, {
      name: 'tsingest series',
      uid: OPENTSDB_DATASOURCE['uid'],
      url: 'https://query:9464',
      tsdbVersion: 3,
      tsdbResolution: 1,
      lookupLimit: 1000,
    });
    const raw = provisionedDatasources(file).find((d) => d['type'] === 'opentsdb') ?? {};
    assert.equal(raw['basicAuth'], true, 'Basic auth on');
    assert.equal(raw['basicAuthUser'], 'grafana');
    assert.equal((raw['jsonData'] as Record<string, unknown>)['serverName'], 'query', "the certificate's name of the query service");
    assert.deepEqual(
      raw['secureJsonData'],
      { basicAuthPassword: '$__file{/run/secrets/grafana-password}', tlsCACert: '$__file{/run/secrets/http-ca.crt}' },
      'secrets from files, never inline',
    );
    const compose = readFileSync(join(ROOT, 'config/compose.json'), 'utf8');
    assert.equal((JSON.parse(compose) as { http: { port: number } }).http.port, 9464, 'config/compose.json serves HTTP on 9464');
    const prom = provisionedDatasources(join(ROOT, 'deploy/grafana/provisioning/datasources/prometheus.yml'));
    assert.deepEqual(
      prom.map((d) => [d['type'], d['isDefault']]),
      [['prometheus', true]],
    );
  });

  void it("Kubernetes: the query Service's DNS name, the same settings", () => {
    const ds = openTsdbDatasource(join(ROOT, 'deploy/grafana/k8s-datasources.yml'));
    const service = parseYaml(readFileSync(join(ROOT, 'deploy/k8s/query-service.yaml'), 'utf8')) as {
      metadata: { name: string };
      spec: { selector: Record<string, string>; ports: { port: number }[] };
    };
    assert.equal(service.spec.selector['app.kubernetes.io/component'], 'query', 'the Service of the query pods');
    const namespace = /^namespace: (\S+)$/m.exec(readFileSync(join(ROOT, 'deploy/k8s/kustomization.yaml'), 'utf8'))?.[1];
    assert.equal(ds.url, `https://${service.metadata.name}.${String(namespace)}.svc.cluster.local:${String(service.spec.ports[0]?.port)}`);
    assert.deepEqual(
      { ...ds, url: '' },
      { name: 'tsingest series', uid: OPENTSDB_DATASOURCE['uid'], url: '', tsdbVersion: 3, tsdbResolution: 1, lookupLimit: 1000 },
    );
    // The host checked in the port's certificate is one the certificate carries, as
    // kustomization.yaml tells the operator to make it (the URL's host, ….svc.cluster.local, is not).
    const carried = [...readFileSync(join(ROOT, 'deploy/k8s/kustomization.yaml'), 'utf8').matchAll(/DNS:(\S+?\.svc)\b/g)].map((m) => m[1] ?? '');
    assert.deepEqual(carried, [`tsingest-metrics.${String(namespace)}.svc`, `${service.metadata.name}.${String(namespace)}.svc`]);
    const raw = provisionedDatasources(join(ROOT, 'deploy/grafana/k8s-datasources.yml')).find((d) => d['type'] === 'opentsdb') ?? {};
    assert.equal((raw['jsonData'] as Record<string, unknown>)['serverName'], carried[1], "Grafana checks the query Service's name");
    const monitor = /serverName: (\S+)/.exec(readFileSync(join(ROOT, 'deploy/k8s/servicemonitor.yaml'), 'utf8'))?.[1];
    assert.ok(monitor !== undefined && carried.includes(monitor), `the ServiceMonitor checks ${String(monitor)}, a name the certificate carries`);
  });

  void it('the YAML subset parser reads what it supports and refuses the rest', () => {
    assert.deepEqual(parseYaml("a: 1 # c\nb:\n  - x: \"q#1\"\n    y: true\n  - 2.5\nc: 'it''s'\nd:\n- ~\n"), {
      a: 1,
      b: [{ x: 'q#1', y: true }, 2.5],
      c: "it's",
      d: [null],
    });
    assert.deepEqual(parseYaml('lookupLimit: "1000"'), { lookupLimit: '1000' });
    assert.deepEqual(parseYaml('a: [1, "x, y", \'z\', ALL]\nb: []'), { a: [1, 'x, y', 'z', 'ALL'], b: [] });
    assert.throws(() => parseYaml('a: {b: 1}'), /flow collections/);
    assert.throws(() => parseYaml('a: [[1], 2]'), /nested flow collections/);
    assert.throws(() => parseYaml('a: 1\n  b: 2'), /unexpected indentation/);
    assert.throws(() => parseYaml('a: 1\na: 2'), /duplicate key/);
  });
});
