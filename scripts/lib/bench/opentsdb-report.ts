// The `opentsdb` phase's table in the benchmark report: OpenTSDB's TSD next to the service's drain
// of the same run (same generated points), writes and reads.
import type { OpenTsdbFigures, PassFigures, ReadLatency } from './opentsdb.ts';

/** What the report needs of one drain scenario of the same run. */
export interface DrainColumn {
  readonly label: string;
  readonly eventsPerSec: number;
  readonly cpuMsPer1000: number;
  readonly hbaseCpuMsPer1000?: number | undefined;
  readonly restCpuMsPer1000?: number | undefined;
}

const f0 = (n: number): string => Math.round(n).toLocaleString('en-US');
const f1 = (n: number): string => (typeof n === 'number' && Number.isFinite(n) ? n.toFixed(1) : '–');
const ok = (n: number | null | undefined): n is number => typeof n === 'number' && Number.isFinite(n);

function readCell(r: ReadLatency, unit: string): string {
  const cpu = Object.entries(r.cpuMsPerRead)
    .filter(([, v]) => ok(v))
    .map(([k, v]) => `${k} ${f1(v)}`)
    .join(', ');
  return `${f1(r.p50)} / ${f1(r.p99)} ms (${r.n} reads, ${f0(r.meanItems)} ${unit} each)${cpu === '' ? '' : `; CPU ms per read: ${cpu}`}`;
}

function passCell(p: PassFigures): string {
  return `${f0(p.pointsPerSec)} points/s (${f1(p.seconds)} s); CPU per 1,000: TSD ${f1(p.tsdCpuMsPer1000)} ms, HBase ${f1(p.hbaseCpuMsPer1000)} ms`;
}

function drainCell(d: DrainColumn): string {
  const stack = [
    ok(d.hbaseCpuMsPer1000) ? `HBase ${f1(d.hbaseCpuMsPer1000)} ms` : '',
    ok(d.restCpuMsPer1000) ? `REST gateway ${f1(d.restCpuMsPer1000)} ms` : '',
  ]
    .filter((x) => x !== '')
    .join(', ');
  return `${d.label}: ${f0(d.eventsPerSec)} events/s; CPU per 1,000: service ${f1(d.cpuMsPer1000)} ms${stack === '' ? '' : `, ${stack}`}`;
}

export function openTsdbTable(o: OpenTsdbFigures, drains: readonly DrainColumn[]): string[] {
  const ours = drains.filter((d) => ok(d.eventsPerSec));
  const oursCell = ours.length === 0 ? 'drain not run' : ours.map(drainCell).join('<br>');
  return [
    `OpenTSDB side by side (phase \`opentsdb\`): OpenTSDB ${o.version}'s TSD on the same HBase, ${f0(o.points)} generated points per pass through \`/api/put?sync=true\`, ${o.batch} points per request, ${o.inFlight} in flight; \`tsdb\` pre-split on ${o.buckets} salt buckets (salt width 1), compaction and appends off. Cold: first pass, every metric and tag value new (UIDs assigned). Warm: the same series a day earlier. Ours: the service draining the same points from Kafka earlier in this run. Reads over one day, each side's tables flushed and major-compacted first (the admin tool waits until no compaction runs); ours through our HTTP read API (REST gateway behind it) on the same points loaded into fresh tables (index on \`site\`).`,
    '',
    '| figure | OpenTSDB | ours |',
    '|---|---|---|',
    `| writes, cold | ${passCell(o.cold)} | ${oursCell} |`,
    `| writes, warm | ${passCell(o.warm)} | ${ours.length === 0 ? '' : 'no dictionary: every pass as above'} |`,
    `| one id, one metric, one day (Zipf ranks 20–99), p50 / p99 | ${readCell(o.idDay.tsd, 'points')} | ${readCell(o.idDay.ours, 'events')} |`,
    `| every point of one site (site-0..6), one day, p50 / p99 | ${readCell(o.bySite.tsd, 'points')} | ${readCell(o.bySite.ours, 'events')} |`,
    `| HBase process CPU with nothing of this run writing (5 s before the cold pass: other users of the stack) | ${f0(o.hbaseIdleCpuMsPerSec)} ms/s | |`,
  ];
}
