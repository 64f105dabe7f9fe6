import { test } from 'node:test';
import assert from 'node:assert/strict';
import { livePanels, panelBody } from '../../../scripts/lib/bench/live-panels.ts';
import { parseQueryBody } from '../../../src/series-language/parse-query.ts';

const DATA = { metric: 'temp', site: 'site-1', busiest: ['a', 'b', 'c', 'd', 'e', 'f'], oneId: 'x' };

void test('the live dashboard: the issue’s six panels and the 1 h / 6 h / 7 d ones, every range ending at the given end, as our parser takes them', () => {
  const panels = livePanels(DATA);
  const names = panels.map((p) => p.name);
  for (const n of [
    'site-1h-avg-24h',
    'site-1h-count-24h',
    'site-0all-avg-24h',
    'one-site-4-subqueries-1h-avg-24h',
    'busiest-5-1m-avg-2h',
    'one-id-raw-24h',
    'site-1h-max-7d',
  ]) {
    assert.ok(names.includes(n), n);
  }
  const end = Date.UTC(2026, 10, 29, 12, 34, 56, 789);
  for (const p of panels) {
    const body = panelBody(p, end);
    assert.equal(body['end'], end, p.name);
    assert.equal(body['start'], end - p.rangeMs, p.name);
    assert.equal(body['msResolution'], true);
    const q = parseQueryBody(body, new URLSearchParams(), end);
    assert.equal(q.queries.length, p.queries.length, p.name);
    assert.equal(q.endMs, end);
  }
  const busiest = panels.find((p) => p.name === 'busiest-5-1m-avg-2h');
  assert.deepEqual(busiest?.queries[0]?.filters, [{ type: 'literal_or', tagk: 'id', filter: 'a|b|c|d|e', groupBy: true }], 'the five busiest, one series each');
  assert.equal(panels.find((p) => p.name === 'one-site-4-subqueries-1h-avg-24h')?.showQuery, true);
});
