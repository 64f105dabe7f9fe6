// The OpenTSDB-compatible series API on the service's HTTP server, the endpoints Grafana's OpenTSDB
// datasource calls (docs/SERIES-API.md, "Endpoints").
// Design notes: docs/DECISIONS.md#series-api-endpoints
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { isAccessRefused, isHBaseError, isRetriable } from '../hbase/errors.ts';
import { errorBody, HttpError, TsdbQueryError } from '../series-language/errors.ts';
import { executeQuery, refuseEarly, type ExecuteDeps, type SubQueryAnswer } from '../series-query/execute.ts';
import { lookupAnswer, lookupFromBody, lookupFromQuery, suggestAnswer } from './lookup.ts';
import { parseQueryString } from '../series-language/parse-m.ts';
import { parseQueryBody } from '../series-language/parse-query.ts';
import { seriesJsonParts } from './series-render.ts';
import { checkSubQueries, DEFAULT_MAX_SUB_QUERIES } from '../series-query/bounds.ts';
import { PhaseClock } from '../series-query/phase-clock.ts';
import { Slices } from '../toolkit/slices.ts';
import { aggregatorsAnswer, filtersAnswer, versionAnswer } from './static-answers.ts';
import type { TsdbQuery } from '../series-language/types.ts';

const JSON_TYPE = 'application/json; charset=UTF-8';

export interface SeriesApiDeps extends Omit<ExecuteDeps, 'signal'> {
  /** the catalog is loaded, and reread when `metric` is unknown to it */
  /** the catalog ready for a request that arrived at `arrivedAt` (deps.now()) naming `metric`; `fresh` false: as it is, no reread */
  readonly ready: (metric?: string, arrivedAt?: number, fresh?: boolean) => Promise<void>;
  readonly deadlineMs: number;
  readonly maxBodyBytes: number;
  readonly log: Pick<Logger, 'warn' | 'error'>;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store', ...headers });
  res.end(text);
}

function sendError(
  res: ServerResponse,
  status: number,
  e: { readonly message: string; readonly details?: string | undefined },
  headers: Record<string, string> = {},
): void {
  const { message, details } = e;
  send(res, status, { error: details === undefined ? { code: status, message } : { code: status, message, details } }, headers);
}

async function readBody(req: IncomingMessage, max: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) throw new HttpError(413, `The request body is larger than ${max} bytes (series.maxBodyBytes)`);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') throw new TsdbQueryError({ field: 'body', message: 'Missing message content' });
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new TsdbQueryError({
      field: 'body',
      message: 'Unable to parse the given JSON',
      details: err instanceof Error ? err.message : String(err),
      cause: err,
    });
  }
}

/** Where a sub-query's points came from: `raw` or `rollup:<window>s` (the echo's rollupTable). */
function planLabel(a: SubQueryAnswer): string {
  return a.plan.path === 'raw' ? 'raw' : `rollup:${a.plan.windowMs / 1000}s`;
}

/**
 * X-Tsingest-Plan, per sub-query: `raw`, with `;blocks=N;raw-ranges=M` when point blocks are on
 * (windows of any id read from a block, ranges read from the data table) and `;summaries=N` for a
 * `0all` folded from window summaries (windows of any id whose summary answered), or
 * `rollup:<window>s;raw-buckets=N` with `;packs=N` (coarser windows whose summary pack answered),
 * `;cached=N` (ids whose windows the window cache answered) and
 * `;expired-buckets=N` when not 0, and `;answer=memo` for an answer the answer memo gave again after
 * its probe (docs/SERIES-API.md).
 */
function planHeader(answers: readonly SubQueryAnswer[], blocks: boolean): string {
  return answers
    .map((a) => {
      const r = a.reads;
      if (a.plan.path === 'raw')
        return blocks || r.summaryWindows > 0
          ? `raw;blocks=${r.blockWindows};raw-ranges=${r.rawRanges}${r.summaryWindows > 0 ? `;summaries=${r.summaryWindows}` : ''}${r.packWindows > 0 ? `;packs=${r.packWindows}` : ''}`
          : 'raw';
      return `${planLabel(a)};raw-buckets=${r.rawBuckets}${r.packWindows > 0 ? `;packs=${r.packWindows}` : ''}${r.cachedIds > 0 ? `;cached=${r.cachedIds}` : ''}${r.expiredBuckets > 0 ? `;expired-buckets=${r.expiredBuckets}` : ''}${a.memo ? ';answer=memo' : ''}`;
    })
    .join(', ');
}

/** Bytes of answer gathered before a write: each write to the socket costs a syscall (and, on loopback, the peer's receive). */
const WRITE_CHUNK_CHARS = 64 * 1024;

/**
 * The answer, streamed in chunks of about WRITE_CHUNK_CHARS; an answer smaller than one chunk is one
 * write with a content-length. Rendered in parts (series-render.ts) and slices of the event loop (slices.ts).
 */
async function writeSeries(
  res: ServerResponse,
  q: TsdbQuery,
  answers: readonly SubQueryAnswer[],
  how: { readonly arrays: boolean; readonly blocks: boolean; readonly clock: PhaseClock },
): Promise<void> {
  const { arrays, blocks, clock } = how;
  const headers = {
    'content-type': JSON_TYPE,
    'cache-control': 'no-store',
    'x-tsingest-plan': planHeader(answers, blocks),
    'server-timing': clock.header(),
  };
  const slices = new Slices();
  let pending = '[';
  let streaming = false;
  let first = true;
  for (const a of answers) {
    const plan = planLabel(a);
    for (const s of a.results) {
      if (!first) pending += ',';
      first = false;
      for (const part of seriesJsonParts(s, a.sub, q, { arrays, plan })) {
        pending += part;
        if (slices.due()) await slices.pause();
      }
      if (pending.length < WRITE_CHUNK_CHARS) continue;
      if (!streaming) res.writeHead(200, headers);
      streaming = true;
      const ok = res.write(pending);
      pending = '';
      if (!ok)
        await new Promise<void>((resolve) => {
          res.once('drain', resolve);
          res.once('close', resolve);
        });
      if (res.destroyed) return;
    }
  }
  pending += ']';
  if (!streaming) res.writeHead(200, { ...headers, 'content-length': Buffer.byteLength(pending) });
  res.end(pending);
}

async function answerQuery(req: IncomingMessage, res: ServerResponse, url: URL, deps: SeriesApiDeps): Promise<void> {
  const now = deps.now();
  const q = req.method === 'POST' ? parseQueryBody(await readBody(req, deps.maxBodyBytes), url.searchParams, now) : parseQueryString(url.searchParams, now);
  checkSubQueries(q, deps.limits.maxSubQueries ?? DEFAULT_MAX_SUB_QUERIES);
  const signal = AbortSignal.timeout(deps.deadlineMs);
  const clock = new PhaseClock();
  let answers: SubQueryAnswer[];
  try {
    // what the catalog already refuses is refused before its reread of what is new (nothing read)
    clock.enter('catalog');
    await deps.ready(undefined, now, false);
    clock.enter('refuse');
    await refuseEarly(q, { ...deps, signal });
    clock.enter('catalog');
    for (const sub of q.queries) await deps.ready(sub.metric, now);
    answers = await executeQuery(q, { ...deps, signal, clock });
  } catch (err) {
    if (signal.aborted && !(err instanceof TsdbQueryError))
      throw new HttpError(408, `The query did not finish within ${deps.deadlineMs} ms (series.deadlineMs); its reads were cancelled`, { cause: err });
    throw err;
  }
  await writeSeries(res, q, answers, { arrays: url.searchParams.has('arrays'), blocks: deps.tier?.blocks === true, clock });
}

type Handler = (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void>;

function routes(deps: SeriesApiDeps): ReadonlyMap<string, { readonly methods: readonly string[]; readonly handle: Handler }> {
  return new Map<string, { methods: string[]; handle: Handler }>([
    ['/api/query', { methods: ['GET', 'POST'], handle: (req, res, url) => answerQuery(req, res, url, deps) }],
    [
      '/api/suggest',
      {
        methods: ['GET', 'POST'],
        handle: async (req, res, url) => {
          const params = req.method === 'POST' ? ((await readBody(req, deps.maxBodyBytes)) as Record<string, unknown>) : url.searchParams;
          await deps.ready();
          send(res, 200, suggestAnswer(params, deps.catalog));
        },
      },
    ],
    [
      '/api/search/lookup',
      {
        methods: ['GET', 'POST'],
        handle: async (req, res, url) => {
          const started = deps.now();
          const lookup = req.method === 'POST' ? lookupFromBody(await readBody(req, deps.maxBodyBytes)) : lookupFromQuery(url.searchParams);
          await deps.ready(lookup.metric === '' ? undefined : lookup.metric);
          send(res, 200, await lookupAnswer(lookup, deps.catalog, started, deps.now));
        },
      },
    ],
    [
      '/api/aggregators',
      {
        methods: ['GET', 'POST'],
        handle: (_req, res) => {
          send(res, 200, aggregatorsAnswer());
          return Promise.resolve();
        },
      },
    ],
    [
      '/api/config/filters',
      {
        methods: ['GET', 'POST'],
        handle: (_req, res) => {
          send(res, 200, filtersAnswer());
          return Promise.resolve();
        },
      },
    ],
    [
      '/api/version',
      {
        methods: ['GET', 'POST'],
        handle: (_req, res) => {
          send(res, 200, versionAnswer());
          return Promise.resolve();
        },
      },
    ],
  ]);
}

/**
 * The series API as a route handler: true when it answered (one of its paths), false otherwise. A 500
 * (and a failure after the answer started) is logged with its cause and the request's id, which the
 * 500's body carries too (`error.requestId`; every response has it as X-Request-Id).
 */
export function createSeriesApi(
  deps: SeriesApiDeps,
): (req: IncomingMessage, res: ServerResponse, url: URL, ctx?: { readonly requestId?: string | undefined }) => Promise<boolean> {
  const table = routes(deps);
  return async (req, res, url, ctx) => {
    const requestId = ctx?.requestId;
    const path = url.pathname.length > 1 && url.pathname.endsWith('/') ? url.pathname.slice(0, -1) : url.pathname;
    const route = table.get(path);
    if (route === undefined) return false;
    try {
      if (!route.methods.includes(req.method ?? 'GET')) throw new HttpError(405, `Method not allowed: ${req.method ?? ''} (${route.methods.join(', ')})`);
      await route.handle(req, res, url);
    } catch (err) {
      if (res.headersSent) {
        deps.log.error({ err, path, requestId }, 'series API: request failed after the answer started; connection cut');
        res.destroy(err instanceof Error ? err : undefined);
        return true;
      }
      if (err instanceof TsdbQueryError) send(res, 400, errorBody(err));
      else if (err instanceof HttpError) sendError(res, err.status, { message: err.message });
      else if (isHBaseError(err) && isRetriable(err)) {
        deps.log.warn({ err, path, requestId }, 'series API: HBase unavailable');
        sendError(res, 503, { message: 'HBase is unavailable, retry later', details: err.message }, { 'retry-after': '1' });
      } else if (isAccessRefused(err)) {
        deps.log.warn({ err, path, requestId }, "series API: HBase REST refused the service's credentials");
        sendError(res, 503, { message: 'HBase is unavailable to the service (the gateway refused its credentials), retry later' }, { 'retry-after': '30' });
      } else {
        deps.log.error({ err, path, requestId }, 'series API: request failed');
        send(res, 500, {
          error: {
            code: 500,
            message: 'The query failed',
            ...(isHBaseError(err) ? { details: err.message } : {}),
            ...(requestId === undefined ? {} : { requestId }),
          },
        });
      }
    }
    return true;
  };
}
