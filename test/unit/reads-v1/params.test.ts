import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeCursor } from '../../../src/reads-v1/cursor.ts';
import { DEFAULT_TO_AHEAD_MS, identityOf, parseQuery, type ParamSettings, type RawParams } from '../../../src/reads-v1/params.ts';
import { QueryError } from '../../../src/reads-v1/query-error.ts';
import { parseWindows } from '../../../src/rollup/windows.ts';
import type { QueryKind } from '../../../src/reads-v1/types.ts';

const NOW = Date.UTC(2024, 10, 22, 8, 0, 0);
const settings: ParamSettings = { defaultLimit: 100, maxLimit: 500, indexTags: ['site'], windows: parseWindows(['1h', '1d']), now: NOW };

function rejects(kind: QueryKind, raw: RawParams, parameter: string, how: { readonly status?: 400 | 404; readonly settings?: ParamSettings } = {}): QueryError {
  const { status = 400, settings: s = settings } = how;
  let caught: unknown;
  try {
    parseQuery(kind, raw, s);
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof QueryError, `${kind} ${JSON.stringify(raw)} should fail on ${parameter}`);
  assert.equal(caught.parameter, parameter, caught.message);
  assert.equal(caught.status, status);
  assert.ok(caught.message.includes(s.label === undefined ? parameter : s.label(parameter)), `message names ${parameter}: ${caught.message}`);
  return caught;
}

test('defaults: limit, from = 0, to = now + 1 day; ISO and epoch times; limits capped at maxLimit', () => {
  const q = parseQuery('range', { id: 'dev1' }, settings);
  assert.deepEqual(q, { kind: 'range', id: 'dev1', from: 0, to: NOW + DEFAULT_TO_AHEAD_MS, metric: null, limit: 100, after: null });
  const iso = parseQuery('by_tag', { tag: 'site', value: '', from: '2024-11-22T07:00:00Z', to: String(NOW), limit: '7' }, settings);
  assert.deepEqual(iso, { kind: 'by_tag', tag: 'site', value: '', from: NOW - 3_600_000, to: NOW, limit: 7, after: null });
  assert.equal(parseQuery('latest', { id: 'x', limit: '100000' }, settings).limit, 500);
  const r = parseQuery('rollups', { id: '设备-7', window: '3600', metric: 'temp' }, settings);
  assert.ok(r.kind === 'rollups');
  assert.equal(r.window.name, '1h');
  assert.equal(r.metric, 'temp');
});

test('each bad parameter is named', () => {
  rejects('latest', {}, 'id');
  rejects('latest', { id: '' }, 'id');
  rejects('latest', { id: 'a\u0000b' }, 'id');
  rejects('latest', { id: 'x'.repeat(129) }, 'id');
  rejects('latest', { id: '\ud800' }, 'id');
  for (const limit of ['0', '-1', '1.5', 'ten', '', '1e3']) rejects('latest', { id: 'a', limit }, 'limit');
  rejects('range', { id: 'a', from: 'yesterday' }, 'from');
  rejects('range', { id: 'a', to: '2024-11-22T08:00:00' }, 'to'); // no zone
  rejects('range', { id: 'a', from: '-5' }, 'from');
  rejects('range', { id: 'a', from: '2000', to: '1000' }, 'from');
  rejects('range', { id: 'a', metric: '' }, 'metric');
  rejects('by_tag', { value: 'x' }, 'tag');
  rejects('by_tag', { tag: 'site' }, 'value');
  rejects('by_tag', { tag: 'rack', value: 'x' }, 'tag', { status: 404 });
  rejects('rollups', { id: 'a' }, 'window');
  rejects('rollups', { id: 'a', window: '15m' }, 'window', { status: 404 });
  rejects('latest', { id: 'a', from: '0' }, 'from'); // not a parameter of latest
  rejects('by_tag', { tag: 'site', value: 'v', id: 'a' }, 'id');
  rejects('latest', { id: 'a', cursor: 'garbage!' }, 'cursor');
  const e = rejects('latest', { id: 'a', limit: 'x' }, 'limit', { settings: { ...settings, label: (p) => `--${p}` } });
  assert.match(e.message, /^--limit /);
});

test('a cursor pins from/to when they are omitted, and must belong to the same query', () => {
  const first = parseQuery('range', { id: 'dev1', metric: 'temp' }, settings);
  const cursor = encodeCursor(identityOf(first), Buffer.from('last-row'));
  const later = { ...settings, now: NOW + 60_000 }; // the default `to` moved on; the cursor keeps the page's
  const second = parseQuery('range', { id: 'dev1', metric: 'temp', cursor, limit: '3' }, later);
  assert.ok(second.kind === 'range');
  assert.equal(second.to, first.kind === 'range' ? first.to : -1);
  assert.ok(second.after?.equals(Buffer.from('last-row')));
  assert.equal(second.limit, 3, 'the limit may change between pages');
  rejects('range', { id: 'dev10', metric: 'temp', cursor }, 'cursor');
  rejects('range', { id: 'dev1', cursor }, 'cursor'); // metric dropped
  rejects('range', { id: 'dev1', metric: 'temp', to: '5', cursor }, 'cursor'); // explicit to differs
  rejects('latest', { id: 'dev1', cursor }, 'cursor');
});
