// The two interfaces over the query layer, against the real stack: the HTTP read API (on
// startHttpServer, port 0) and `tsingest query` as a child process. Both must answer what the query
// layer answers, and reject bad parameters naming them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Registry } from 'prom-client';
import { HBaseRestClient } from '../../../src/hbase/index.ts';
import { collectPage, createQueries } from '../../../src/reads-v1/queries.ts';
import { keyspaceOf, tablesOf } from '../../../src/service/keyspace.ts';
import { createReadApi } from '../../../src/reads-v1/http-api.ts';
import type { QueryKind } from '../../../src/reads-v1/types.ts';
import { startHttpServer } from '../../../src/runtime/http.ts';
import { Lifecycle } from '../../../src/runtime/lifecycle.ts';
import { createLogger } from '../../../src/runtime/logger.ts';
import { NODE_BIN, REPO_ROOT } from '../../support/service-harness.ts';
import { BASE, HOUR, ROLLUP_FROM, expectedByTag, expectedRange, followPages, plain, readFixture } from './fixture.ts';

const run = promisify(execFile);
const log = createLogger({ level: 'silent' });

interface Body {
  items?: unknown[];
  next?: string | null;
  limit?: number;
  dangling?: number;
  error?: string;
  parameter?: string;
  message?: string;
}

async function getJson(url: string): Promise<{ status: number; body: Body }> {
  const res = await fetch(url);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  return { status: res.status, body: (await res.json()) as Body };
}

void test('HTTP read API and CLI answer like the query layer', async (t) => {
  const f = await readFixture(t, 'api');
  const q = createQueries({ cfg: f.cfg, hbase: f.h.rest, keyspace: keyspaceOf(f.cfg), tables: tablesOf(f.cfg) });
  const server = await startHttpServer({
    host: '127.0.0.1',
    port: 0,
    registry: new Registry(),
    lifecycle: new Lifecycle({ log }),
    log,
    routes: createReadApi({ cfg: f.cfg, hbase: f.h.rest, keyspace: keyspaceOf(f.cfg), tables: tablesOf(f.cfg), log }),
  });
  t.after(() => server.close());
  const base = `http://127.0.0.1:${server.port}/api/v1`;

  const viaQueries = async (kind: QueryKind, raw: Record<string, string>): Promise<unknown[]> =>
    (
      await followPages(async (cursor) => {
        const page = await collectPage(q.run(q.parse(kind, cursor === null ? raw : { ...raw, cursor })));
        return { items: page.items, next: page.end.next };
      })
    ).items;
  const viaHttp = (path: string): Promise<{ items: unknown[]; pages: number[]; dangling: number }> =>
    followPages(async (cursor) => {
      const sep = path.includes('?') ? '&' : '?';
      const { status, body } = await getJson(`${base}${path}${cursor === null ? '' : `${sep}cursor=${cursor}`}`);
      assert.equal(status, 200, JSON.stringify(body));
      return { items: body.items ?? [], next: body.next ?? null, dangling: body.dangling };
    });

  await t.test('200 pages equal the query layer and the expected rows', async () => {
    const latest = await viaHttp('/ids/dev1/latest?limit=7');
    assert.deepEqual(latest.items, await viaQueries('latest', { id: 'dev1', limit: '7' }));
    assert.deepEqual((latest.items as Parameters<typeof plain>[0][]).map(plain), expectedRange(f, 'dev1').map(plain));
    assert.deepEqual(latest.pages, [7, 7, 7, 7, 2]);
    const unicode = await viaHttp(`/ids/${encodeURIComponent('设备-7')}/latest`);
    assert.deepEqual((unicode.items as Parameters<typeof plain>[0][]).map(plain), expectedRange(f, '设备-7').map(plain));
    const from = BASE + 3000;
    const to = new Date(BASE + 21_000).toISOString();
    const hum = await viaHttp(`/ids/dev1/events?from=${from}&to=${encodeURIComponent(to)}&metric=hum&limit=2`);
    assert.deepEqual(hum.items, await viaQueries('range', { id: 'dev1', from: String(from), to, metric: 'hum', limit: '2' }));
    assert.deepEqual((hum.items as Parameters<typeof plain>[0][]).map(plain), expectedRange(f, 'dev1', { from, to: BASE + 21_000, metric: 'hum' }).map(plain));
    const hq = await viaHttp('/index/site/hq/events?limit=10');
    assert.deepEqual((hq.items as Parameters<typeof plain>[0][]).map(plain), expectedByTag(f, 'hq').map(plain));
    assert.equal(hq.dangling, 2);
    const factory = await viaHttp(`/index/site/${encodeURIComponent('工厂-1')}/events`);
    assert.deepEqual((factory.items as Parameters<typeof plain>[0][]).map(plain), expectedByTag(f, '工厂-1').map(plain));
    const rollupPath = `/ids/dev1/rollups/1h?from=${ROLLUP_FROM}&to=${ROLLUP_FROM + 6 * HOUR}&limit=4`;
    const rollups = await viaHttp(rollupPath);
    assert.deepEqual(
      rollups.items,
      await viaQueries('rollups', { id: 'dev1', window: '1h', from: String(ROLLUP_FROM), to: String(ROLLUP_FROM + 6 * HOUR), limit: '4' }),
    );
    assert.deepEqual(
      (rollups.items as { windowStart: number }[]).map((r) => r.windowStart),
      [...f.rollups].reverse().map((r) => r.windowStart),
    );
    const capped = await getJson(`${base}/ids/dev1/latest?limit=99999999`);
    assert.equal(capped.body.limit, f.cfg.query.maxLimit);
    assert.equal(capped.body.items?.length, 30);
    assert.equal(capped.body.next, null);
  });

  await t.test('400 naming the parameter, 404 for an unknown index or window', async () => {
    const page1 = await getJson(`${base}/ids/dev1/latest?limit=2`);
    const cursor = page1.body.next ?? '';
    assert.notEqual(cursor, '');
    const cases: [string, number, string][] = [
      ['/ids/dev1/latest?limit=abc', 400, 'limit'],
      ['/ids/dev1/latest?limit=0', 400, 'limit'],
      ['/ids/dev1/events?from=yesterday', 400, 'from'],
      ['/ids/dev1/events?to=2024-13-01T00:00:00Z', 400, 'to'],
      [`/ids/dev1/events?from=${BASE + 10}&to=${BASE}`, 400, 'from'],
      ['/ids/dev1/latest?cursor=not-a-cursor', 400, 'cursor'],
      [`/ids/dev10/latest?cursor=${cursor}`, 400, 'cursor'],
      [`/ids/dev1/events?cursor=${cursor}`, 400, 'cursor'],
      ['/ids//latest', 400, 'id'],
      ['/ids/dev1/latest?metric=temp', 400, 'metric'],
      ['/ids/dev1/latest?limit=1&limit=2', 400, 'limit'],
      ['/ids/%E8%AE/latest', 400, 'id'],
      ['/index/rack/r1/events', 404, 'tag'],
      ['/ids/dev1/rollups/5m', 404, 'window'],
    ];
    for (const [path, status, parameter] of cases) {
      const { status: got, body } = await getJson(`${base}${path}`);
      assert.equal(got, status, `${path}: ${JSON.stringify(body)}`);
      assert.equal(body.parameter, parameter, path);
      assert.ok(body.message?.includes(parameter) === true, `${path}: message names ${parameter}: ${body.message ?? ''}`);
      assert.equal(typeof body.error, 'string');
    }
    const unknown = await getJson(`${base}/nothing/here`);
    assert.equal(unknown.status, 404);
    const post = await fetch(`${base}/ids/dev1/latest`, { method: 'POST' });
    assert.equal(post.status, 405);
    await post.body?.cancel();
    const ops = await fetch(`http://127.0.0.1:${server.port}/healthz`);
    assert.equal(ops.status, 200, 'the ops routes still answer');
    await ops.body?.cancel();
  });

  await t.test('503 (retriable) when HBase cannot be reached', async (t2) => {
    const down = new HBaseRestClient({ baseUrl: 'http://127.0.0.1:1', defaultDeadlineMs: 2000 });
    t2.after(() => down.close());
    const api = await startHttpServer({
      host: '127.0.0.1',
      port: 0,
      registry: new Registry(),
      lifecycle: new Lifecycle({ log }),
      log,
      routes: createReadApi({ cfg: f.cfg, hbase: down, keyspace: keyspaceOf(f.cfg), tables: tablesOf(f.cfg), log }),
    });
    t2.after(() => api.close());
    const res = await fetch(`http://127.0.0.1:${api.port}/api/v1/ids/dev1/latest`);
    assert.equal(res.status, 503);
    assert.equal(res.headers.get('retry-after'), '1');
    assert.equal(((await res.json()) as Body).error, 'unavailable');
  });

  await t.test('tsingest query prints the same items (--json) and a table', async () => {
    const sets = [...f.h.baseSets, 'kafka.groupId=unused'].flatMap((s) => ['--set', s]);
    const cli = (args: string[]): Promise<{ stdout: string; stderr: string }> =>
      run(NODE_BIN, ['src/cli.ts', 'query', ...args, ...sets], { cwd: REPO_ROOT, env: process.env });
    const json = await cli(['range', '--id', 'dev1', '--from', String(BASE + 2000), '--to', String(BASE + 12_000), '--limit', '4', '--json']);
    const lines = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const tail = lines.pop() ?? {};
    const page = await collectPage(q.run(q.parse('range', { id: 'dev1', from: String(BASE + 2000), to: String(BASE + 12_000), limit: '4' })));
    assert.deepEqual(lines, JSON.parse(JSON.stringify(page.items)));
    assert.equal(lines.length, 4);
    assert.equal(tail['limit'], 4);
    assert.equal(typeof tail['next'], 'string');
    const second = await cli([
      'range',
      '--id',
      'dev1',
      '--from',
      String(BASE + 2000),
      '--to',
      String(BASE + 12_000),
      '--limit',
      '100',
      '--json',
      '--cursor',
      String(tail['next']),
    ]);
    const rest = second.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { ts?: number; next?: string | null });
    assert.deepEqual(rest.pop(), { next: null, limit: 100 });
    assert.deepEqual(
      [...lines, ...rest].map((x) => x['ts']),
      expectedRange(f, 'dev1', { from: BASE + 2000, to: BASE + 12_000 }).map((r) => r.ts),
    );

    const table = await cli(['by-tag', '--tag', 'site', '--value', 'moved']);
    const [header, row, summary, next] = table.stdout.trim().split('\n');
    assert.match(header ?? '', /^TIME\s+ID\s+METRICS\s+TAGS$/);
    const moved = expectedByTag(f, 'moved')[0];
    assert.ok(moved !== undefined);
    assert.ok(
      row?.startsWith(new Date(moved.ts).toISOString()) === true && row.includes('node-3') && row.includes('temp=7') && row.includes('site=moved'),
      row,
    );
    assert.match(summary ?? '', /^1 event \(limit 100\); 0 dangling index entries skipped$/);
    assert.equal(next, 'no more results');
    await assert.rejects(
      cli(['latest', '--id', 'dev1', '--limit', 'lots']),
      (e: { code?: number; stderr?: string }) => e.code === 2 && /--limit must be a positive integer/.test(e.stderr ?? ''),
    );
  });
});
