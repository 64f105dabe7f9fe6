// I/O: the facts the doctor's rules read, from the REST gateway: the cluster status (servers, heap,
// per-region loads), each checked table's schema and region map, and a bounded sample scan (the
// first rows of every region, so a large table costs the same as a small one); and, when given a
// probe, the usable compression codecs.
import type { ClusterStatus, HBaseRestClient, Region, RegionLoad } from '../hbase/index.ts';
import { durationSeconds, isRollupWindowFamily } from '../keys/index.ts';
import { decodeSummary } from '../rollup/summary.ts';
import type { ClusterFacts, PointCount, RegionFacts, ServerFacts, TableFacts } from './facts.ts';
import { layoutFromAttributes } from './layout.ts';
import { SampleAccumulator } from './sample.ts';

export interface GatherOptions {
  readonly tables: readonly string[];
  /** rows read from the start of each region (0: no sample) */
  readonly sampleRowsPerRegion: number;
  readonly settings: ClusterFacts['settings'];
  /** per table, writes per region at the previous run (by encoded region name) */
  readonly previousWrites?: ReadonlyMap<string, ReadonlyMap<string, number>>;
  /** the usable compression codecs (any case), e.g. the admin tool's `codecs` op; left out: not probed */
  readonly codecs?: () => Promise<readonly string[]>;
  /** count the points of this service's rollup table's coarsest summaries, reading at most this many (0 or left out: not counted) */
  readonly pointsScanSummaries?: number;
}

type CodecFacts = Pick<ClusterFacts, 'codecsUsable' | 'codecProbeFailure'>;

/** The probe's answer, or why it failed (first line, bounded): a failed probe never fails the doctor. */
export async function probeCodecs(codecs: (() => Promise<readonly string[]>) | undefined): Promise<CodecFacts> {
  if (codecs === undefined) return {};
  try {
    return { codecsUsable: (await codecs()).map((c) => c.toUpperCase()) };
  } catch (err) {
    const text = (err instanceof Error ? err.message : String(err)).split('\n')[0]?.trim() ?? '';
    return { codecProbeFailure: text === '' ? 'no reason given' : text.slice(0, 300) };
  }
}

/** The encoded name (32 hex) at the end of a full region name `table,start,id.<encoded>.`, or the name itself. */
export function encodedRegionName(name: string): string {
  return /\.([0-9a-f]{32})\.$/.exec(name)?.[1] ?? name;
}

function loadsByRegion(status: ClusterStatus): Map<string, RegionLoad> {
  const out = new Map<string, RegionLoad>();
  for (const node of status.liveNodes) for (const r of node.regions) out.set(encodedRegionName(r.name.toString('latin1')), r);
  return out;
}

function serversOf(status: ClusterStatus): ServerFacts[] {
  return status.liveNodes.map((n) => ({
    name: n.name,
    maxHeapMB: n.maxHeapSizeMB,
    regions: n.regions.length,
    stores: n.regions.reduce((a, r) => a + r.stores, 0),
  }));
}

function regionFacts(r: Region, load: RegionLoad | undefined): RegionFacts {
  return {
    name: r.name,
    startKey: r.startKey,
    endKey: r.endKey,
    server: r.location,
    ...(load === undefined ? {} : { storefileSizeMB: load.storefileSizeMB, writeRequests: load.writeRequestsCount }),
  };
}

async function sampleOf(rest: HBaseRestClient, table: string, regions: readonly Region[], rows: number): Promise<TableFacts['sample']> {
  if (rows <= 0) return undefined;
  const acc = new SampleAccumulator();
  for (const r of regions) {
    const scan = rest.scan(table, { startRow: r.startKey, ...(r.endKey.length === 0 ? {} : { stopRow: r.endKey }), limit: rows, pageRows: rows, batch: 100 });
    for await (const row of scan) acc.add(row);
  }
  return acc.facts();
}

/** Writes per region since the previous run; a region that split, merged or reopened since is left out. */
function writesSince(regions: readonly RegionFacts[], previous: ReadonlyMap<string, number> | undefined): Map<string, number> | undefined {
  if (previous === undefined) return undefined;
  const out = new Map<string, number>();
  for (const r of regions) {
    const before = previous.get(encodedRegionName(r.name));
    if (before === undefined || r.writeRequests === undefined || r.writeRequests < before) return undefined;
    out.set(r.name, r.writeRequests - before);
  }
  return out;
}

export async function gatherFacts(rest: HBaseRestClient, o: GatherOptions): Promise<ClusterFacts> {
  const codecs = probeCodecs(o.codecs); // a JVM start: runs while the gateway is read
  const status = await rest.clusterStatus();
  const loads = loadsByRegion(status);
  const tables: TableFacts[] = [];
  for (const name of o.tables) {
    const [schema, regions] = await Promise.all([rest.getSchema(name), rest.regions(name)]);
    const facts = regions.map((r) => regionFacts(r, loads.get(encodedRegionName(r.name))));
    const layout = layoutFromAttributes(schema.attributes);
    const sample = await sampleOf(rest, name, regions, o.sampleRowsPerRegion);
    const since = writesSince(facts, o.previousWrites?.get(name));
    tables.push({
      name,
      schema,
      regions: facts,
      ...(layout === undefined ? {} : { layout }),
      ...(sample === undefined ? {} : { sample }),
      ...(since === undefined ? {} : { writesSinceLastCheck: since }),
    });
  }
  const bound = o.pointsScanSummaries ?? 0;
  const pointCount = bound > 0 ? await countPoints(rest, tables, bound) : undefined;
  return { servers: serversOf(status), tables, settings: o.settings, ...(pointCount === undefined ? {} : { pointCount }), ...(await codecs) };
}

/** The rollup table's coarsest summary family (r<size> with the largest size), if it has one. */
export function coarsestSummaryFamily(t: Pick<TableFacts, 'schema'>): string | undefined {
  let best: { name: string; seconds: number } | undefined;
  for (const f of t.schema.families) {
    const seconds = isRollupWindowFamily(f.name) ? durationSeconds(f.name.slice(1)) : undefined;
    if (seconds !== undefined && (best === undefined || seconds > best.seconds)) best = { name: f.name, seconds };
  }
  return best?.name;
}

/**
 * The points the first checked rollup table's coarsest summaries count: one scan of that family (the
 * summary packs, 0x00-led qualifiers, skipped), stopped once `bound` summaries are read.
 */
async function countPoints(rest: HBaseRestClient, tables: readonly TableFacts[], bound: number): Promise<PointCount | undefined> {
  const t = tables.find((x) => x.layout?.role === 'rollup');
  const family = t === undefined ? undefined : coarsestSummaryFamily(t);
  if (t === undefined || family === undefined) return undefined;
  let summaries = 0;
  let points = 0;
  for await (const row of rest.scan(t.name, { columns: [Buffer.from(family, 'utf8')], batch: 1000 })) {
    for (const c of row.cells) {
      if (c.qualifier.length === 0 || c.qualifier[0] === 0x00) continue;
      if (++summaries > bound) return { table: t.name, family, summaries: bound, points: undefined, bound };
      points += decodeSummary(c.value, c.qualifier.toString('utf8')).count;
    }
  }
  return { table: t.name, family, summaries, points, bound };
}

/** What the next run compares against: writes per region (encoded name) per table. */
export function writeCounters(facts: ClusterFacts): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const t of facts.tables) {
    const m: Record<string, number> = {};
    for (const r of t.regions) if (r.writeRequests !== undefined) m[encodedRegionName(r.name)] = r.writeRequests;
    out[t.name] = m;
  }
  return out;
}
