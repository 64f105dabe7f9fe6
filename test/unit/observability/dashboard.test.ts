// The Grafana dashboard is generated from scripts/dashboard: the committed JSON must be exactly what
// the code builds, its layout must fit Grafana's 24-column grid, and every query may only use
// metrics the service exports (or the project's recording rules) and the dashboard's variables.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DASHBOARD_FILE, VARIABLES, buildDashboard, renderDashboard } from '../../../scripts/dashboard/region-write-spread.ts';
import { layout, panelQueries, sized, text, type Json } from '../../../scripts/dashboard/grafana.ts';
import { arr, obj } from '../../support/json-shape.ts';
import { METRIC_NAMES } from '../../../src/metrics/ingest-metrics.ts';
import { READ_METRIC_NAMES } from '../../../src/metrics/read-metrics.ts';
import { HOT_ID_METRICS } from '../../../src/metrics/hot-id-metrics.ts';
import { SPREAD_METRIC_NAMES } from '../../../src/metrics/spread-metrics.ts';
import { EVENT_LOOP_METRIC_NAMES } from '../../../src/metrics/event-loop-metrics.ts';
import { QUERY_LIMIT_METRIC_NAMES } from '../../../src/metrics/query-limit-metrics.ts';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');

const num = (v: Json | undefined): number => {
  assert.equal(typeof v, 'number');
  return v as number;
};

/** Metrics whose series come from elsewhere: Prometheus itself, and the hot-ids top-K gauges of src/load/hot-ids.ts. */
const EXTERNAL = ['up', ...Object.values(HOT_ID_METRICS)];

function recordingRules(): Set<string> {
  const text = readFileSync(join(ROOT, 'deploy/prometheus/rules/tsingest-recording.yml'), 'utf8');
  return new Set([...text.matchAll(/^\s*- record: (\S+)/gm)].map((m) => m[1] ?? ''));
}

void describe('dashboard region-write-spread', () => {
  const dashboard = buildDashboard();
  const panels = arr(dashboard['panels']).map(obj);

  void it('the committed JSON is what scripts/dashboard generates (run `npm run dashboard`)', () => {
    assert.equal(readFileSync(join(ROOT, DASHBOARD_FILE), 'utf8'), renderDashboard());
  });

  void it('numbers panels uniquely and places them inside the grid without overlaps', () => {
    const ids = panels.map((p) => num(p['id']));
    assert.equal(new Set(ids).size, ids.length);
    const cells = new Map<string, string>();
    for (const p of panels) {
      const g = obj(p['gridPos']);
      const [x, y, w, h] = [num(g['x']), num(g['y']), num(g['w']), num(g['h'])];
      assert.ok(x >= 0 && w >= 1 && x + w <= 24 && h >= 1, `${text(p['title'])}: gridPos ${JSON.stringify(g)}`);
      for (let cx = x; cx < x + w; cx++) {
        for (let cy = y; cy < y + h; cy++) {
          const key = `${cx},${cy}`;
          assert.equal(cells.get(key), undefined, `${text(p['title'])} overlaps ${String(cells.get(key))} at ${key}`);
          cells.set(key, text(p['title']));
        }
      }
    }
  });

  void it('layout wraps a section onto the next line when the row is full', () => {
    const placed = layout([{ title: 'S', panels: [sized(16, 4, { title: 'a' }), sized(10, 6, { title: 'b' }), sized(8, 2, { title: 'c' })] }]);
    assert.deepEqual(
      placed.map((p) => [p['title'], p['gridPos']]),
      [
        ['S', { h: 1, w: 24, x: 0, y: 0 }],
        ['a', { h: 4, w: 16, x: 0, y: 1 }],
        ['b', { h: 6, w: 10, x: 0, y: 5 }],
        ['c', { h: 2, w: 8, x: 10, y: 5 }],
      ],
    );
    assert.throws(() => layout([{ title: 'S', panels: [sized(25, 1, { title: 'wide' })] }]), /panel "wide": width must be 1\.\.24, got 25/);
  });

  void it('every panel but the rows has a description, a datasource and at least one query', () => {
    for (const p of panels.filter((x) => x['type'] !== 'row')) {
      const title = text(p['title']);
      assert.ok(text(p['description']).length > 40, `${title}: description`);
      assert.deepEqual(p['datasource'], { type: 'prometheus', uid: '${datasource}' }, title);
      assert.ok(arr(p['targets']).length > 0, `${title}: targets`);
    }
  });

  void it('queries use only metrics the service exports or the recording rules define', () => {
    const known = new Set<string>([
      ...Object.values(METRIC_NAMES),
      ...Object.values(READ_METRIC_NAMES),
      ...Object.values(SPREAD_METRIC_NAMES),
      ...Object.values(EVENT_LOOP_METRIC_NAMES),
      ...Object.values(QUERY_LIMIT_METRIC_NAMES),
      ...recordingRules(),
      ...EXTERNAL,
    ]);
    for (const q of panelQueries(dashboard)) {
      const withoutStrings = q.expr.replace(/"[^"]*"/g, '""');
      const used = [...withoutStrings.matchAll(/\b(tsingest_[a-z_]+|[a-z_]+:[a-z_]+:[a-z0-9_]+|up)\b(?=\s*[{[)]|\s*$)/g)].map((m) => m[1] ?? '');
      assert.ok(used.length > 0, `${q.panel}: no metric found in ${q.expr}`);
      for (const name of used) {
        const base = name.replace(/_(bucket|sum|count)$/, '');
        assert.ok(known.has(name) || known.has(base), `${q.panel}: unknown metric ${name} in ${q.expr}`);
      }
      assert.doesNotMatch(q.expr, /(?<![:\w])tsingest_region_write_skew(?![:\w])/, 'the per-instance gauge is tsingest_instance_region_write_skew');
    }
  });

  void it('queries reference only the dashboard variables and Grafana built-ins', () => {
    const templating = arr(obj(dashboard['templating'])['list']).map((v) => text(obj(v)['name']));
    assert.deepEqual([...templating], [...VARIABLES]);
    for (const q of panelQueries(dashboard)) {
      for (const m of q.expr.matchAll(/\$(\w+)/g)) {
        const name = m[1] ?? '';
        assert.ok(name === '__rate_interval' || templating.includes(name), `${q.panel}: unknown variable $${name}`);
      }
      if (q.expr.includes('tsingest_') && !q.expr.includes(':')) assert.match(q.expr, /job=~"\$job"/, `${q.panel}: not filtered by $job: ${q.expr}`);
    }
  });

  void it('the Ready panel counts down instances (up == 0), not only tsingest_ready', () => {
    const ready = panels.find((p) => p['title'] === 'Instances not ready');
    assert.ok(ready !== undefined);
    const exprs = arr(ready['targets']).map((t) => text(obj(t)['expr']));
    assert.ok(
      exprs.some((e) => /\bup\{/.test(e) && /tsingest_ready/.test(e)),
      exprs.join('; '),
    );
  });

  void it('has the key-visualizer panel: one row per region ordered by start key, repeated per table', () => {
    const heat = panels.find((p) => p['type'] === 'status-history');
    assert.ok(heat !== undefined);
    assert.equal(heat['repeat'], 'table');
    const [target] = arr(heat['targets']).map(obj);
    assert.ok(target !== undefined);
    assert.match(text(target['expr']), /^sum by \(start_key\) \(.*tsingest_region_writes_total.*tsingest_region_info/);
    assert.equal(target['legendFormat'], '{{start_key}}');
  });

  void it('skew thresholds leave the demo (~3) green and reach red well below "all in one region" (16)', () => {
    const skew = panels.find((p) => p['title'] === 'Region write skew (cluster)');
    assert.ok(skew !== undefined);
    const steps = arr(obj(obj(obj(skew['fieldConfig'])['defaults'])['thresholds'])['steps']).map(obj);
    const colourAt = (v: number): string => text(steps.filter((s) => s['value'] === null || num(s['value']) <= v).at(-1)?.['color']);
    assert.equal(colourAt(1), 'green');
    assert.equal(colourAt(3.57), 'green');
    assert.equal(colourAt(5.08), 'yellow');
    assert.equal(colourAt(8), 'red');
    assert.equal(colourAt(16), 'red');
  });
});
