// Issue 37, "no read can stall or kill ingest", against a real service process (`tsingest run`) on
// the real stack, called by a credential with only the read scope: a fill query over 100 years is a
// 400 naming series.maxPoints before anything is read (the read client's HBase requests do not
// move); a catastrophic regexp against a 31-character tag value is answered while /healthz keeps
// answering; a query whose computation and answer take many slices of the event loop lets /healthz
// answer while it runs; the query for an unknown metric (`pressure`, `dev10`) is OpenTSDB's 400, not a
// 500; every response carries X-Request-Id.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashToken } from '../../../src/front-door/credentials.ts';
import { uniqueName } from '../../support/env.ts';
import { createHarness, freePort, produceEvents, startChild, waitFor, type TestEvent } from '../../support/service-harness.ts';

const TOKEN = 'guard-reader-token-0123456789abcdef';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const LONG = `${'a'.repeat(30)}!`;

function dataset(now: number): TestEvent[] {
  const out: TestEvent[] = [];
  for (let i = 1; i <= 12; i++) {
    for (const metric of ['temp', 'hum', 'load']) {
      for (let k = 0; k < 60; k++)
        out.push({ id: `dev${i}`, ts: now - 3_600_000 + k * 60_000 + i * 1000, metric, value: (k * i) % 17, tags: { site: `s${i % 3}` } });
    }
  }
  for (let k = 0; k < 30; k++) out.push({ id: 'dev13', ts: now - 1_800_000 + k * 60_000, metric: 'temp', value: k, tags: { site: 's0', rack: LONG } });
  return out;
}

void test(
  'issue 37: bounds before reads, linear regexps, answers in slices, request ids (a real service process, read scope)',
  { timeout: 600_000 },
  async (t) => {
    const h = await createHarness(t, { prefix: 'guard', partitions: 2, sets: ['index.tags=["site"]'] });
    const dir = mkdtempSync(join(tmpdir(), 'tsi-guard-'));
    h.defer(() => {
      rmSync(dir, { recursive: true, force: true });
    });
    const credentialsFile = join(dir, 'credentials.json');
    writeFileSync(credentialsFile, JSON.stringify({ tokens: [{ name: 'reader', sha256: hashToken(TOKEN), scopes: ['read', 'metrics'] }] }));
    const events = dataset(Date.now());
    await produceEvents(h, events);
    const port = await freePort();
    const svc = startChild(
      h,
      [
        `kafka.groupId=${uniqueName('it-guard')}`,
        `http.auth.credentialsFile=${credentialsFile}`,
        // nothing but the queries reads through the read client: the no-read check counts its requests
        'rollup.enabled=false',
        'doctor.everyMs=0',
        'series.catalogRefreshMs=3600000',
      ],
      port,
    );
    const base = `http://127.0.0.1:${port}`;
    const get = (path: string, init: RequestInit = {}) => fetch(base + path, { ...init, headers: { ...AUTH, ...(init.headers as Record<string, string>) } });
    const post = (path: string, body: unknown) => get(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const scrape = async (): Promise<string> => (await get('/metrics')).text();
    const sum = (text: string, re: RegExp): number => text.split('\n').reduce((n, l) => (re.test(l) ? n + Number(l.split(' ').at(-1)) : n), 0);

    await waitFor('the service consumed the data set', 180_000, async () => {
      const res = await get('/metrics?name=tsingest_events_total').catch(() => undefined);
      return res?.status === 200 && sum(await res.text(), /^tsingest_events_total\{/) >= events.length;
    });
    // the catalog rereads on a query naming a metric it does not know (at most every 2 s)
    await waitFor(
      'the catalog holds every series',
      60_000,
      async () => {
        await (await get('/api/query?start=1h-ago&m=sum:not_a_metric')).arrayBuffer();
        const tagv = (await (await get(`/api/suggest?type=tagv&q=${LONG}`)).json()) as string[];
        return tagv.includes(LONG);
      },
      2500,
    );

    await t.test('pressure{id=dev10} (GET and POST): the 400 of a metric the catalog does not know, with a request id', async () => {
      const answers = [
        await get('/api/query?start=1h-ago&m=avg:pressure{id=dev10}', { headers: { 'x-request-id': 'guard-pressure-1' } }),
        await post('/api/query', { start: '1h-ago', queries: [{ aggregator: 'avg', metric: 'pressure', tags: { id: 'dev10' } }] }),
      ];
      for (const res of answers) {
        const body = (await res.json()) as { error: { code: number; message: string } };
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(body.error.message, "No such name for 'metrics': 'pressure'");
        assert.match(res.headers.get('x-request-id') ?? '', /^[\w.:-]+$/);
      }
      assert.equal(answers[0]?.headers.get('x-request-id'), 'guard-pressure-1', 'a well-formed incoming id is kept');
    });

    await t.test('a fill over 100 years (and 1m-avg-zero over 10): a 400 naming series.maxPoints, nothing read, the process alive', async () => {
      const reads = async () => sum(await scrape(), /^tsingest_hbase_gateway_requests_total\{client="read"/);
      const before = await reads();
      for (const q of ['start=100y-ago&m=avg:1s-avg-zero:temp', 'start=10y-ago&m=avg:1m-avg-zero:temp', 'start=100y-ago&m=sum:1s-avg-zero:temp{id=dev1}']) {
        const res = await get(`/api/query?${q}`);
        const body = (await res.json()) as { error: { message: string; details: string } };
        assert.equal(res.status, 400, q);
        assert.match(body.error.message, /would produce points: \d+, more than the limit of 2000000 \(series\.maxPoints\)/, q);
      }
      assert.equal(await reads(), before, 'the read client made no HBase request for them');
      assert.equal((await get('/healthz')).status, 200);
      assert.equal(svc.child.exitCode, null, 'the process lives');
    });

    await t.test('more sub-queries than series.maxSubQueries: a 400 naming it', async () => {
      // 33 different sub-queries (equal ones are dropped, as OpenTSDB does)
      const ms = Array.from({ length: 33 }, (_, i) => `m=${['sum', 'min', 'max'][i % 3] ?? 'sum'}:temp{id=dev${Math.floor(i / 3) + 1}}`).join('&');
      const res = await get(`/api/query?start=1h-ago&${ms}`);
      assert.equal(res.status, 400);
      assert.match(JSON.stringify(await res.json()), /series\.maxSubQueries/);
    });

    /**
     * Probes /healthz every few ms while `work` runs: probes sent meanwhile (each must answer 200), how
     * many answered before the work ended, and the slowest.
     */
    const healthzDuring = async <T>(work: Promise<T>): Promise<{ result: T; sent: number; answeredBefore: number; slowestMs: number }> => {
      const state = { done: false };
      const finished = (): boolean => state.done;
      let sent = 0;
      let answeredBefore = 0;
      let slowestMs = 0;
      const poll = (async () => {
        while (!finished()) {
          const t0 = performance.now();
          sent++;
          const res = await fetch(`${base}/healthz`);
          await res.arrayBuffer();
          assert.equal(res.status, 200);
          if (!finished()) answeredBefore++;
          slowestMs = Math.max(slowestMs, performance.now() - t0);
          await new Promise((r) => setTimeout(r, 5));
        }
      })();
      const result = await work.finally(() => {
        state.done = true;
      });
      await poll;
      return { result, sent, answeredBefore, slowestMs };
    };

    await t.test('regexp (a+)+$ against a 31-character tag value: answered, /healthz answering meanwhile', async () => {
      const { result, sent, answeredBefore, slowestMs } = await healthzDuring(
        (async () => {
          const res = await post('/api/query', {
            start: '1h-ago',
            queries: [{ aggregator: 'sum', metric: 'temp', filters: [{ type: 'regexp', tagk: 'rack', filter: '(a+)+$', groupBy: false }] }],
          });
          return { status: res.status, body: (await res.json()) as unknown[] };
        })(),
      );
      t.diagnostic(
        `regexp query: ${result.status}; /healthz probed ${sent} times meanwhile (${answeredBefore} answered before it), slowest ${slowestMs.toFixed(1)} ms`,
      );
      assert.equal(result.status, 200);
      assert.ok(sent > 0, 'a /healthz probe sent while the query ran was answered');
      assert.deepEqual(result.body, [], 'the value ends in "!": no match');
      const matching = await post('/api/query', {
        start: '1h-ago',
        queries: [{ aggregator: 'sum', metric: 'temp', filters: [{ type: 'regexp', tagk: 'rack', filter: '^(a+)+!$', groupBy: false }] }],
      });
      assert.equal(((await matching.json()) as unknown[]).length, 1, 'and a pattern that matches finds the series');
    });

    await t.test('a query computing and rendering ~1.2M points: /healthz answers while it runs', async () => {
      const { result, answeredBefore, slowestMs } = await healthzDuring(
        (async () => {
          const res = await get('/api/query?start=1d-ago&m=none:1s-avg-zero:temp&arrays');
          return { status: res.status, bytes: (await res.arrayBuffer()).byteLength, id: res.headers.get('x-request-id') };
        })(),
      );
      const delay = (await scrape()).split('\n').find((l) => l.startsWith('tsingest_event_loop_delay_seconds{quantile="1"}'));
      t.diagnostic(
        `fill query: ${result.status}, ${result.bytes} bytes; /healthz answered ${answeredBefore} times before it ended, slowest ${slowestMs.toFixed(1)} ms; ${delay ?? ''}`,
      );
      assert.equal(result.status, 200);
      assert.ok(result.bytes > 10_000_000, 'a large answer');
      assert.ok(result.id !== null);
      assert.ok(answeredBefore > 0, '/healthz answered while the query ran');
    });
  },
);
