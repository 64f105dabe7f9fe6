// The read API routes on the path as sent: ids, tag names and values such as `.`, `..`, `/`, `%2F`,
// `?`, `#`, `+`, spaces, unicode and 128-byte ids reach the query layer unchanged, over a real HTTP
// server with requests sent byte for byte (node:http), each answered with exactly that id's rows.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { buildDataRow } from '../../../src/events/cells.ts';
import { encodeIndexKey, encodeRollupKey, MAX_ID_BYTES } from '../../../src/keys/index.ts';
import { createReadApi } from '../../../src/reads-v1/http-api.ts';
import { requestPath } from '../../../src/reads-v1/request-path.ts';
import { encodeSummary, summaryOf } from '../../../src/rollup/summary.ts';
import { loadConfig } from '../../../src/runtime/config.ts';
import { startHttpServer } from '../../../src/runtime/http.ts';
import { Lifecycle } from '../../../src/runtime/lifecycle.ts';
import { createLogger } from '../../../src/runtime/logger.ts';
import { keyspaceOf, tablesOf } from '../../../src/service/keyspace.ts';
import { AWKWARD_IDS, AWKWARD_VALUES, LONGEST_ID, getRaw } from '../../support/awkward-ids.ts';
import { FakeHBase } from '../../support/fake-hbase.ts';

const log = createLogger({ level: 'silent' });
const B = 4;
const BASE = 1_732_262_400_000;
const HOUR = 3_600_000;
const TAGS = [
  { name: 'site', segments: ['site'] },
  { name: '..', segments: ['..', '%2E%2E'] },
  { name: 'a/b', segments: ['a%2Fb'] },
] as const;
const cfg = loadConfig({ env: {}, sets: [`keys.saltBuckets=${B}`, `index.tags=${JSON.stringify(TAGS.map((t) => t.name))}`] });

interface Ev {
  id: string;
  ts: number;
  tags: Record<string, string>;
}
interface Page {
  items?: { id: string; ts?: number; windowStart?: number }[];
  next?: string | null;
  error?: string;
  parameter?: string;
}

/** Two events and one 1h summary per awkward id; each event tags every index with one awkward value. */
function fill(store: FakeHBase): Ev[] {
  const events: Ev[] = [];
  for (const [i, { id }] of AWKWARD_IDS.entries()) {
    const value = (k: number): string => AWKWARD_VALUES[(i + k) % AWKWARD_VALUES.length]?.id ?? '';
    for (let k = 0; k < 2; k++) {
      const e = { id, ts: BASE + i * 1000 + k * 10, tags: { site: value(k), '..': value(k + 1), 'a/b': value(k + 2) } };
      events.push(e);
      const row = buildDataRow({ ...e, metric: 'temp', value: i }, B, 'd');
      store.seed('tsdata', row.key, row.cells);
      for (const [indexName, v] of Object.entries(e.tags)) {
        store.seed('tsindex', encodeIndexKey({ indexName, value: v, ts: e.ts, id }, B), [
          { family: 'd', qualifier: Buffer.from('temp'), value: Buffer.alloc(0), timestamp: e.ts },
        ]);
      }
    }
    const windowStart = BASE - (BASE % HOUR);
    store.seed('tsrollup', encodeRollupKey({ id, windowSec: 3600, windowStart }, B), [
      { family: 'd', qualifier: Buffer.from('temp'), value: encodeSummary(summaryOf(BASE, i)), timestamp: windowStart },
    ]);
  }
  return events;
}

async function serve(t: TestContext): Promise<{ port: number; events: Ev[] }> {
  const store = new FakeHBase();
  const events = fill(store);
  const server = await startHttpServer({
    host: '127.0.0.1',
    port: 0,
    registry: new Registry(),
    lifecycle: new Lifecycle({ log }),
    log,
    routes: createReadApi({ cfg, hbase: store, keyspace: keyspaceOf(cfg), tables: tablesOf(cfg), log }),
  });
  t.after(() => server.close());
  return { port: server.port, events };
}

async function page(port: number, path: string): Promise<Page> {
  const res = await getRaw(port, path);
  assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
  return res.body as Page;
}

const idTs = (x: { id: string; ts?: number }): string => `${x.id}@${x.ts ?? ''}`;
const newestFirst = (a: Ev, b: Ev): number => b.ts - a.ts;

test('requestPath: the request-target as sent, up to its query or fragment', () => {
  assert.equal(requestPath('/api/v1/ids/%2E%2E/latest?limit=1'), '/api/v1/ids/%2E%2E/latest');
  assert.equal(requestPath('/api/v1/ids/../latest'), '/api/v1/ids/../latest');
  assert.equal(requestPath('/api/v1/ids/a\\b/latest#x?y'), '/api/v1/ids/a\\b/latest');
  assert.equal(requestPath('http://host:9464/api/v1/ids/.%2E/latest?x'), '/api/v1/ids/.%2E/latest');
  assert.equal(requestPath('http://host'), '');
  assert.equal(requestPath('*'), '');
});

test('latest, range and rollups read exactly the id each raw path segment names', async (t) => {
  const { port, events } = await serve(t);
  assert.equal(Buffer.byteLength(LONGEST_ID), MAX_ID_BYTES);
  for (const { id, segments } of AWKWARD_IDS) {
    const own = events
      .filter((e) => e.id === id)
      .sort(newestFirst)
      .map(idTs);
    for (const seg of segments) {
      const latest = await page(port, `/api/v1/ids/${seg}/latest`);
      assert.deepEqual(latest.items?.map(idTs), own, `latest ${seg}`);
      const range = await page(port, `/api/v1/ids/${seg}/events?from=${BASE}&to=${BASE + HOUR}&metric=temp`);
      assert.deepEqual(range.items?.map(idTs), own, `range ${seg}`);
      const rollups = await page(port, `/api/v1/ids/${seg}/rollups/1h`);
      assert.deepEqual(
        rollups.items?.map((x) => `${x.id}@${x.windowStart ?? ''}`),
        [`${id}@${BASE - (BASE % HOUR)}`],
        `rollups ${seg}`,
      );
    }
  }
  const first = await page(port, '/api/v1/ids/%2E%2E/latest?limit=1');
  assert.deepEqual(
    first.items?.map((x) => x.id),
    ['..'],
    'the query string is still read',
  );
  const next = await page(port, `/api/v1/ids/../latest?cursor=${first.next ?? ''}`);
  assert.deepEqual(
    next.items?.map((x) => x.id),
    ['..'],
    'the cursor of `%2E%2E` serves `..`',
  );
  const absolute = await page(port, `http://127.0.0.1:${port}/api/v1/ids/.%2E/latest`);
  assert.deepEqual(
    absolute.items?.map((x) => x.id),
    ['..', '..'],
    'absolute-form target',
  );
});

test('the query-string forms read any id, tag and value, also through fetch (which drops . and .. path segments)', async (t) => {
  const { port, events } = await serve(t);
  for (const { id } of AWKWARD_IDS) {
    const own = events
      .filter((e) => e.id === id)
      .sort(newestFirst)
      .map(idTs);
    const q = `id=${encodeURIComponent(id)}`;
    const get = async (path: string): Promise<Page> => {
      const res = await fetch(`http://127.0.0.1:${port}${path}`);
      assert.equal(res.status, 200, path);
      return (await res.json()) as Page;
    };
    assert.deepEqual((await get(`/api/v1/latest?${q}`)).items?.map(idTs), own, `latest ${JSON.stringify(id)}`);
    assert.deepEqual((await get(`/api/v1/events?${q}&from=${BASE}&to=${BASE + HOUR}`)).items?.map(idTs), own, `range ${JSON.stringify(id)}`);
    assert.deepEqual(
      (await get(`/api/v1/rollups/1h?${q}`)).items?.map((x) => x.id),
      [id],
      `rollups ${JSON.stringify(id)}`,
    );
  }
  for (const { id: value } of AWKWARD_VALUES) {
    const expected = events
      .filter((e) => e.tags['..'] === value)
      .sort(newestFirst)
      .map(idTs);
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/tag-events?tag=${encodeURIComponent('..')}&value=${encodeURIComponent(value)}`);
    assert.deepEqual(((await res.json()) as Page).items?.map(idTs), expected, `by-tag .. = ${JSON.stringify(value)}`);
  }
  const missing = await getRaw(port, '/api/v1/latest');
  assert.deepEqual([missing.status, (missing.body as Page).parameter], [400, 'id']);
  const both = await getRaw(port, '/api/v1/ids/a/latest?id=b');
  assert.deepEqual([both.status, (both.body as Page).parameter], [400, 'id'], 'an id in the path and in the query is refused');
});

test('by-tag reads exactly the tag name and value each raw segment names', async (t) => {
  const { port, events } = await serve(t);
  for (const tag of TAGS) {
    for (const { id: value, segments } of AWKWARD_VALUES) {
      const expected = events
        .filter((e) => e.tags[tag.name] === value)
        .sort(newestFirst)
        .map(idTs);
      assert.ok(expected.length > 0);
      for (const tagSeg of tag.segments) {
        for (const seg of segments) {
          const got = await page(port, `/api/v1/index/${tagSeg}/${seg}/events`);
          assert.deepEqual(got.items?.map(idTs), expected, `by-tag ${tagSeg} ${seg}`);
        }
      }
    }
  }
});

test('paths that are not an id stay errors; nothing is normalised into another route', async (t) => {
  const { port } = await serve(t);
  const cases: [string, number, string | undefined][] = [
    ['/api/v1/ids/%/latest', 400, 'id'],
    ['/api/v1/ids/%E8/latest', 400, 'id'],
    [`/api/v1/ids/${encodeURIComponent(`${LONGEST_ID}x`)}/latest`, 400, 'id'],
    ['/api/v1/ids//latest', 400, 'id'],
    ['/api/v1/ids/a/rollups/%2E%2E', 404, 'window'],
    ['/api/v1/ids/a/rollups/..', 404, 'window'],
    ['/api/v1/ids/a/rollups/.', 404, 'window'],
    ['/api/v1/index/%2E/x/events', 404, 'tag'],
    ['/api/v1/ids/a/b/latest', 404, undefined],
    ['/api/v1/ids/#/latest', 404, undefined],
    ['/api/v1/ids/x/../../ids/a/latest', 404, undefined],
    ['/x/../api/v1/ids/a/latest', 404, undefined],
  ];
  for (const [path, status, parameter] of cases) {
    const res = await getRaw(port, path);
    assert.equal(res.status, status, `${path}: ${JSON.stringify(res.body)}`);
    assert.equal((res.body as Page).parameter, parameter, path);
  }
  const health = await getRaw(port, '/healthz');
  assert.equal(health.status, 200, 'the ops routes are unchanged');
});
