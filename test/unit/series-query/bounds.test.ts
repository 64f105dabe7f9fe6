// The bounds a query is held to before anything is read or computed (src/series-query/bounds.ts, execute.ts):
// the points its downsamplers would emit count against series.maxPoints (a fill policy emits one
// point per interval per series), the sub-queries against series.maxSubQueries; both are a 400 naming
// the key, and the reads port is never called. And the deadline stops the computation, not only the
// reads: a compute too long for one slice of the event loop ends at its next pause.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SeriesIndex } from '../../../src/catalog/series-index.ts';
import { checkEmitted, emittedPerSeries } from '../../../src/series-query/bounds.ts';
import { TsdbQueryError } from '../../../src/series-language/errors.ts';
import { executeQuery, type ExecuteDeps } from '../../../src/series-query/execute.ts';
import { parseQueryString } from '../../../src/series-language/parse-m.ts';
import { tagSetKey, type RawAsk, type TaggedPoints } from '../../../src/series-data/points.ts';
import type { SeriesReads } from '../../../src/series-query/series-reads.ts';

const NOW = Date.UTC(2026, 0, 1);
const YEAR = 365 * 86_400_000;

const query = (m: string | string[], start: string | number = '100y-ago') => {
  const p = new URLSearchParams({ start: String(start), end: String(NOW) });
  for (const x of Array.isArray(m) ? m : [m]) p.append('m', x);
  return parseQueryString(p, NOW);
};

/** A reads port that counts its calls and answers `points` per id (each series of the ids asked: one tag set, `site`). */
function readsPort(
  points: (id: string) => { ts: number[]; values: number[] } = () => ({ ts: [], values: [] }),
  onRead?: () => void,
): SeriesReads & { calls: number } {
  const port = {
    calls: 0,
    rawPointsOf(ask: RawAsk) {
      const { ids, metrics } = ask;
      port.calls++;
      onRead?.();
      const out = new Map<string, Map<string, Map<string, TaggedPoints>>>();
      for (const m of metrics) {
        const byId = new Map<string, Map<string, TaggedPoints>>();
        for (const id of ids) {
          const key = tagSetKey({ site: 's1' }, 'id');
          byId.set(id, new Map([[key, { tagsJson: key, ...points(id) }]]));
        }
        out.set(m, byId);
      }
      return Promise.resolve(out);
    },
    windowsOf() {
      port.calls++;
      return Promise.reject(new Error('no windows in this test'));
    },
  };
  return port;
}

function catalogOf(ids: number): SeriesIndex {
  const c = new SeriesIndex({ idTagKey: 'id' });
  for (let i = 0; i < ids; i++) c.add({ metric: 'temp', id: `d${i}`, tags: { site: 's1' } });
  return c;
}

function deps(reads: SeriesReads, catalog: SeriesIndex, signal = new AbortController().signal, maxPoints = 2_000_000): ExecuteDeps {
  return {
    catalog,
    reads,
    tier: undefined,
    idTagKey: 'id',
    limits: { maxSeries: 10_000, maxPoints, maxSubQueries: 4, concurrency: 2 },
    now: () => NOW,
    signal,
    integerValues: false,
  };
}

void test('emitted points: one per interval of the scan range per series with a fill; 1 for 0all; 0 without a fill', () => {
  const [zero100y] = query('avg:1s-avg-zero:temp').queries;
  const q = query('avg:1s-avg-zero:temp');
  assert.ok(zero100y !== undefined);
  const n = emittedPerSeries(zero100y, q);
  // 100 years before 2026 is before 1970: the scan starts at 0, so 56 years of seconds
  assert.ok(n >= (56 * YEAR) / 1000 && n <= (57 * YEAR) / 1000, `about 1.77e9 (${n})`);
  const tenYears = query('avg:1m-avg-zero:temp', '10y-ago');
  assert.ok(emittedPerSeries(tenYears.queries[0] as never, tenYears) > 5_000_000);
  const none = query('avg:1s-avg:temp');
  assert.equal(emittedPerSeries(none.queries[0] as never, none), 0, 'fill none: at most the points read');
  const all = query('avg:0all-avg-zero:temp');
  assert.equal(emittedPerSeries(all.queries[0] as never, all), 1);
  const month = query('avg:1nc-avg-nan:temp', '1y-ago');
  const m = emittedPerSeries(month.queries[0] as never, month);
  assert.ok(m >= 13 && m <= 16, `calendar months over a year: at least the 13 buckets a year can touch (${m})`);
  assert.throws(
    () => {
      checkEmitted(q, [1], 2_000_000);
    },
    (e: unknown) =>
      e instanceof TsdbQueryError &&
      e.field === 'series.maxPoints' &&
      /would produce points: \d+, more than the limit of 2000000 \(series\.maxPoints\)/.test(e.message),
  );
  checkEmitted(q, [0], 1);
});

void test('a 100-year 1s-avg-zero query: a 400 naming series.maxPoints before any read (issue 37)', async () => {
  const reads = readsPort();
  const d = deps(reads, catalogOf(3));
  for (const m of ['avg:1s-avg-zero:temp', 'sum:1m-avg-zero:temp{id=d1}', 'none:1m-avg-nan:temp']) {
    const q = m.startsWith('sum') ? query(m, '10y-ago') : query(m);
    await assert.rejects(executeQuery(q, d), (e: unknown) => e instanceof TsdbQueryError && e.field === 'series.maxPoints', m);
  }
  assert.equal(reads.calls, 0, 'nothing was read');
  // the same range without a fill reads (and is bounded by what it reads)
  const answers = await executeQuery(query('avg:1h-avg:temp'), d);
  assert.equal(answers.length, 1);
  assert.equal(reads.calls, 1);
});

void test('more sub-queries than series.maxSubQueries: a 400 naming it, nothing read', async () => {
  const reads = readsPort();
  const q = query(['sum:temp', 'min:temp', 'max:temp', 'avg:temp', 'count:temp'], '1h-ago');
  await assert.rejects(
    executeQuery(q, deps(reads, catalogOf(1))),
    (e: unknown) => e instanceof TsdbQueryError && e.field === 'series.maxSubQueries' && /has sub-queries: 5, more than the limit of 4/.test(e.message),
  );
  assert.equal(reads.calls, 0);
});

void test('the deadline stops the computation: a compute longer than a slice ends at its next pause, not when it is done', async () => {
  // 20 series of 20k points each at distinct timestamps: sum interpolates every series at each of
  // 400k timestamps (8M steps, far more than one slice). The deadline passes as soon as the event
  // loop gets a turn after the reads: only a compute that pauses can see it.
  const ac = new AbortController();
  const points = (id: string) => {
    const k = Number(id.slice(1));
    const ts: number[] = [];
    const values: number[] = [];
    for (let i = 0; i < 20_000; i++) {
      ts.push(NOW - 86_400_000 + i * 4000 + k * 13);
      values.push(i % 97);
    }
    return { ts, values };
  };
  let reads = 0;
  const port = readsPort(points, () => {
    reads++;
  });
  const d = deps(port, catalogOf(20), ac.signal);
  const pending = executeQuery(query('sum:temp', '1d-ago'), d);
  // the reads start at a turn of the event loop and answer in its microtasks, where the computation
  // starts: by the time this loop gets a turn after them, only a compute that paused is not done
  while (reads === 0) await new Promise((r) => setImmediate(r));
  ac.abort(new Error('deadline passed'));
  await assert.rejects(pending, /deadline passed/);
  // and without a deadline the same query (over fewer series) is answered
  const [a] = await executeQuery(query('sum:temp', '1d-ago'), deps(readsPort(points), catalogOf(3)));
  assert.ok(a !== undefined && (a.results[0]?.dps.length ?? 0) === 60_000);
});
