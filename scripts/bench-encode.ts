// npm run bench:encode -- [--events 100000] [--ids 10000] [--index none|2tags] [--spread 0] [--rounds 5] [--only STAGE,…]
//
// The service's per-event CPU without Kafka or HTTP, stage by stage, on its own code: generated events
// (src/demo/generate.ts, Zipf ids) as the JSON records Kafka would hand over, cut into flush units of
// batch.maxRows records, then
//   plan      planBatch: JSON parse + validation, data keys, cells, index rows
//   write     EventWriter.write of those plans into a sink that only encodes the put bodies, with the
//             service's real write observer (Prometheus metrics, region writes over a 16-region map,
//             hot ids), rollup markers and touch rows, series catalog rows (as writeSide builds them,
//             service.role=ingest) and the consumer's per-unit accounting; once per body format
//   catalog   the series catalog's rows of those plans (CatalogMarks.rowsFor, acknowledged) in the
//             steady state: every series written before, nothing new to write
//   encode    the put bodies alone (rows already converted), per body format; plus bytes per event
//   scrape    one Prometheus scrape of the write side's prom-client Registry after the writes (µs per scrape, not
//             per event; the hot-ids sketch at its configured capacity, every slot of its window
//             filled: its clock advances one window per round of writes)
// --spread N spreads the N most frequent ids (a fixed registry view: an epoch from the first event on,
// K sized from each id's share as the promoter would) to measure what spreading costs per event.
// CPU is this process's user + system time (process.cpuUsage, so other load on the machine changes it
// little) per 1,000 events; each stage runs --rounds times and the fastest round is reported (the first
// rounds pay for JIT warm-up). Heap and GC are included, as in the service.
import { parseArgs } from 'node:util';
import PQueue from 'p-queue';
import { Registry } from 'prom-client';
import { generateEvents } from '../src/demo/index.ts';
import { encodeCellSet, encodeCellSetProto, toRowCells, type RowCellsLike } from '../src/hbase/index.ts';
import { EventWriter, OutagePolicy, planBatch, type BatchPlan, type SourceRecord } from '../src/ingest/index.ts';
import { createMetrics, meteredRegionWrites, regionMapObserver, registerHotIdMetrics } from '../src/metrics/index.ts';
import { HotIds, RegionMap } from '../src/load/index.ts';
import { loadConfig } from '../src/runtime/index.ts';
import { catalogMarks, hotIdsOptions, ingestObserver, keyspaceOf, planSettings, rollupMarks, tablesOf, touches, writeObserver } from '../src/service/index.ts';
import { fixedLookup, type SpreadEntry } from '../src/keys/index.ts';
import { sizeK } from '../src/spread/index.ts';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '100000' },
    ids: { type: 'string', default: '10000' },
    index: { type: 'string', default: 'none' },
    rounds: { type: 'string', default: '5' },
    spread: { type: 'string', default: '0' },
    only: { type: 'string' },
  },
});
const EVENTS = Number(values.events);
const IDS = Number(values.ids);
const ROUNDS = Number(values.rounds);
const SPREAD = Number(values.spread);
if (!(EVENTS > 0 && IDS > 0 && ROUNDS > 0)) throw new Error('--events, --ids and --rounds must be positive');
if (!(Number.isInteger(SPREAD) && SPREAD >= 0)) throw new Error('--spread is a count of ids ≥ 0');
if (values.index !== 'none' && values.index !== '2tags') throw new Error('--index is none or 2tags');
const only = values.only === undefined ? undefined : new Set(values.only.split(','));
const runs = (stage: string): boolean => only === undefined || only.has(stage);

const twoTags = values.index === '2tags';
const cfg = loadConfig({ env: {}, sets: [`index.tags=${twoTags ? '["site","rack"]' : '[]'}`] });
const tables = tablesOf(cfg);

// ---- input: the records a Kafka fetch hands over --------------------------------------------
// Recent events, as in a live stream (open rollup windows: the marker cache skips re-marks).
const startTs = Date.now() - EVENTS;
const records: SourceRecord[] = [];
const perId = new Map<string, number>();
for (const e of generateEvents({ count: EVENTS, ids: IDS, startTs, stepMs: 1, seed: 42, ...(twoTags ? { racks: 13 } : {}) })) {
  records.push({ offset: String(records.length), key: null, value: Buffer.from(JSON.stringify(e)), timestamp: String(e.ts) });
  perId.set(e.id, (perId.get(e.id) ?? 0) + 1);
}
const policy = { buckets: cfg.keys.saltBuckets, kFactor: cfg.keys.spread.kFactor, maxK: cfg.keys.spread.maxK ?? cfg.keys.saltBuckets };
const spreadEntries = Object.fromEntries(
  [...perId]
    .sort((a, b) => b[1] - a[1])
    .slice(0, SPREAD)
    .map(([id, n]): [string, SpreadEntry] => [id, { epochs: [{ since: startTs, k: Math.max(2, sizeK(n / EVENTS, policy)) }], fence: null }]),
);
const keyspace = keyspaceOf(cfg, fixedLookup(spreadEntries));
const settings = planSettings(cfg, keyspace, tables);
const units: SourceRecord[][] = [];
for (let i = 0; i < records.length; i += cfg.batch.maxRows) units.push(records.slice(i, i + cfg.batch.maxRows));

// ---- measurement ---------------------------------------------------------------------------
interface Figure {
  readonly stage: string;
  readonly usPer1000: number;
  readonly bytesPerEvent?: number;
}
const figures: Figure[] = [];

async function measure(stage: string, fn: () => unknown, bytes?: () => number): Promise<void> {
  if (!runs(stage.split(' ')[0] ?? stage)) return;
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < ROUNDS; round++) {
    const t0 = process.cpuUsage();
    await fn();
    const u = process.cpuUsage(t0);
    best = Math.min(best, u.user + u.system);
  }
  const fig: Figure = { stage, usPer1000: (best / EVENTS) * 1000, ...(bytes === undefined ? {} : { bytesPerEvent: bytes() / EVENTS }) };
  figures.push(fig);
  const b = fig.bytesPerEvent === undefined ? '' : `, ${fig.bytesPerEvent.toFixed(1)} bytes per event`;
  process.stdout.write(`${stage.padEnd(18)} ${fig.usPer1000.toFixed(0).padStart(7)} µs CPU per 1000 events${b}\n`);
}

// ---- stages ----------------------------------------------------------------------------------
let plans: BatchPlan[] = [];
await measure('plan', () => {
  plans = units.map((u) => planBatch(u, settings()));
});
if (plans.length === 0) plans = units.map((u) => planBatch(u, settings()));
const rejected = plans.reduce((n, p) => n + p.rejects.length, 0);
if (rejected > 0) throw new Error(`${rejected} generated events were rejected`);

// The series catalog's cache alone, in the steady state (every series of the stream written once
// before the round, so a round writes nothing new): what each unit's acknowledged events cost it.
const steadyCatalog = catalogMarks(cfg, tables);
if (steadyCatalog !== undefined) {
  for (const p of plans) steadyCatalog.acknowledged(steadyCatalog.rowsFor(p.events));
  await measure('catalog', () => {
    for (const p of plans) steadyCatalog.acknowledged(steadyCatalog.rowsFor(p.events));
  });
}

type Encoder = (rows: readonly RowCellsLike[]) => number;
const encoders: readonly (readonly [string, Encoder])[] = [
  ['json', (rows) => Buffer.byteLength(encodeCellSet(rows))],
  ['protobuf', (rows) => encodeCellSetProto(rows).length],
];

/** The service's write side over a sink that only encodes: real observer, region writes, hot ids, markers. */
const clock = { ms: 0 };
const tickPerUnit = (): number => cfg.metrics.hotIdsWindowMs / Math.max(1, plans.length);

async function writerFor(
  encode: Encoder,
): Promise<{ writer: EventWriter; accounting: ReturnType<typeof ingestObserver>; bytes: () => number; scrape: () => Promise<string>; close: () => void }> {
  const metrics = createMetrics(new Registry(), { defaultMetrics: false });
  const log = { warn: () => undefined, error: () => undefined, debug: () => undefined };
  const regionsOf = (table: string): { name: string; startKey: Buffer; endKey: Buffer; server: string }[] =>
    Array.from({ length: cfg.keys.saltBuckets }, (_v, b) => ({
      name: `${table},${b},1.${b.toString(16).padStart(32, '0')}.`,
      startKey: b === 0 ? Buffer.alloc(0) : Buffer.from([b]),
      endKey: b === cfg.keys.saltBuckets - 1 ? Buffer.alloc(0) : Buffer.from([b + 1]),
      server: 'rs1:16020',
    }));
  const regionMap = new RegionMap({
    source: { regions: (t) => Promise.resolve(regionsOf(t)) },
    tables: tables.mapped,
    log,
    observer: regionMapObserver(metrics),
  });
  await Promise.all(tables.mapped.map((t) => regionMap.refresh(t)));
  const { writes, close: closeWrites } = meteredRegionWrites(metrics, { regionMap, windowMs: cfg.metrics.skewWindowMs });
  // The sketch's clock advances by one window per round of writes, so after a round every slot of the
  // window is filled, as in a service that has run for a window (the scrape stage prices that).
  const hotIds = new HotIds({ ...hotIdsOptions(cfg, tables, keyspace, regionMap), now: () => clock.ms });
  const unregister = registerHotIdMetrics(metrics.registry, hotIds);
  let bytes = 0;
  const catalog = catalogMarks(cfg, tables);
  const writer = new EventWriter({
    sink: {
      put: (_table, rows) => {
        bytes += encode(rows);
        return Promise.resolve();
      },
    },
    queue: new PQueue({ concurrency: cfg.hbase.concurrency }),
    tables: { data: tables.data.name, index: tables.index.name },
    chunk: { maxRows: cfg.batch.maxRows, maxBytes: cfg.batch.maxBytes },
    policy: new OutagePolicy({ retry: { baseMs: 1, maxMs: 1 }, isRetriable: () => false }),
    isRowRejection: () => false,
    observer: writeObserver(metrics, writes, regionMap, hotIds),
    marks: cfg.rollup.enabled ? { table: tables.rollup.name, planner: rollupMarks(cfg, keyspace, tables), touches: touches(cfg, keyspace, tables) } : undefined,
    catalog: catalog === undefined ? undefined : { table: tables.meta.name, planner: catalog },
  });
  const accounting = ingestObserver(metrics);
  return {
    writer,
    accounting,
    bytes: () => bytes,
    scrape: () => metrics.registry.metrics(),
    close: () => {
      closeWrites();
      unregister();
      regionMap.stop();
    },
  };
}

for (const [name, encode] of encoders) {
  const w = await writerFor(encode);
  let perRound = 0;
  await measure(
    `write ${name}`,
    async () => {
      const before = w.bytes();
      for (const p of plans) {
        clock.ms += tickPerUnit();
        await w.writer.write(p);
        // what the consumer does once a unit is committed
        w.accounting.unit(p.events.length, 0);
        w.accounting.accepted(p.events.map((e) => e.ts));
        w.accounting.deadLettered(p.rejects);
      }
      perRound = w.bytes() - before;
    },
    () => perRound,
  );
  if (name === 'protobuf' && runs('scrape')) {
    // the sketch is full now; a write between scrapes (as while draining) keeps it from reusing a top
    const scrapes = 20;
    let us = 0;
    for (let i = 0; i < scrapes; i++) {
      const p = plans[i % plans.length];
      clock.ms += tickPerUnit();
      if (p !== undefined) await w.writer.write(p);
      const t0 = process.cpuUsage();
      await w.scrape();
      const u = process.cpuUsage(t0);
      us += u.user + u.system;
    }
    process.stdout.write(`${'scrape'.padEnd(18)} ${(us / scrapes).toFixed(0).padStart(7)} µs CPU per scrape (a unit written before each)\n`);
  }
  w.close();
}

const putRows: RowCellsLike[][] = [];
await measure('rows', () => {
  putRows.length = 0;
  for (const p of plans) {
    const chunk: RowCellsLike[] = [];
    for (const e of p.events) {
      chunk.push(toRowCells(e.data.row));
      for (const ix of e.index) chunk.push(toRowCells(ix.row));
    }
    putRows.push(chunk);
  }
});
if (putRows.length === 0) for (const p of plans) putRows.push(p.events.flatMap((e) => [toRowCells(e.data.row), ...e.index.map((ix) => toRowCells(ix.row))]));

for (const [name, encode] of encoders) {
  let bytes = 0;
  await measure(
    `encode ${name}`,
    () => {
      bytes = 0;
      for (const rows of putRows) bytes += encode(rows);
    },
    () => bytes,
  );
}

process.stdout.write(
  `\n${EVENTS} events, ${IDS} ids, index ${values.index}, B=${cfg.keys.saltBuckets}, spread ids ${SPREAD}, units of ${cfg.batch.maxRows}, ` +
    `best of ${ROUNDS} rounds, Node ${process.version}\n`,
);
