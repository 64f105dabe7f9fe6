// Benchmark output: the JSON results file, a Markdown summary, and the figures block of BENCHMARKS.md.
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import type { SteadyFigures } from './service.ts';
import type { SpreadFigures } from './spread.ts';
import type { OpenTsdbFigures } from './opentsdb.ts';
import { openTsdbTable } from './opentsdb-report.ts';

export interface MachineInfo {
  readonly nproc: number;
  readonly cpuModel: string;
  readonly ramGiB: number;
  readonly node: string;
  readonly hbase: string;
  readonly kafka: string;
}

function pomProperty(path: string, name: string): string {
  try {
    return new RegExp(`<${name}>([^<]+)</${name}>`).exec(readFileSync(path, 'utf8'))?.[1] ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

export function machineInfo(root: string): MachineInfo {
  return {
    nproc: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    ramGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    hbase: pomProperty(`${root}/deploy/local/hbase/pom.xml`, 'hbase.version'),
    kafka: pomProperty(`${root}/deploy/local/kafka/pom.xml`, 'kafka.version'),
  };
}

export interface ScenarioFigures {
  readonly label: string;
  readonly indexTags: readonly string[];
  readonly rowsPerEvent: number;
  readonly serviceEventsPerSec: number;
  readonly serviceSeconds: number;
  readonly cpuMsPer1000: number;
  /** CPU of the HBase process and of the REST gateway over the drain, per 1,000 events (ms) */
  readonly stackCpuMsPer1000?: { readonly hbase?: number | undefined; readonly rest?: number | undefined };
  readonly peakRssMiB: number;
  readonly hwmMiB: number;
  readonly ceilingEventsPerSec: number;
  readonly nativeEventsPerSec: number;
  readonly nativeThreads: number;
  readonly steady: SteadyFigures;
  readonly skew: { readonly serviceRun: number; readonly serviceWindow: number };
  /** CPU time per 1,000 events by category from the service's --cpu-prof (ms), built-ins charged to their caller */
  readonly profile?: Readonly<Record<string, number>>;
  /** the same, strictly by the top frame (self time) */
  readonly profileSelf?: Readonly<Record<string, number>>;
  /** the frames with the most self time, ms per 1,000 events (JSON only) */
  readonly profileTop?: readonly { readonly fn: string; readonly url: string; readonly category: string; readonly ms: number }[];
}

export interface StallFigures {
  readonly rate: number;
  readonly stallSeconds: number;
  readonly produced: number;
  readonly rowsCounted: number;
  readonly peakRssMiB: number;
  readonly hwmMiB: number;
  readonly recoverSeconds: number;
}

export interface Figures {
  readonly date: string;
  readonly command: string;
  readonly machine: MachineInfo;
  readonly events: number;
  readonly ids: number;
  readonly buckets: number;
  readonly partitions: number;
  readonly putEncoding: string;
  readonly produceEventsPerSec: number;
  readonly scenarios: readonly ScenarioFigures[];
  /** the skew phase: hot ids with spreading on and off, and unsalted */
  readonly spread?: SpreadFigures;
  readonly stall?: StallFigures;
  /** the opentsdb phase: OpenTSDB's TSD on the same HBase, same points */
  readonly opentsdb?: OpenTsdbFigures;
  readonly compression: string;
}

const f0 = (n: number): string => Math.round(n).toLocaleString('en-US');
const f1 = (n: number): string => n.toFixed(1);
const f2 = (n: number): string => n.toFixed(2);
const ms = (s: number): string => `${(s * 1000).toFixed(0)} ms`;
/** A phase that was not run leaves NaN (null once through JSON): rendered as such, not as "NaN". */
const ran = (...ns: (number | null | undefined)[]): boolean => ns.every((n) => typeof n === 'number' && Number.isFinite(n));
const NOT_RUN = 'not run';

export function markdownTable(r: Figures): string {
  const sc = r.scenarios;
  const row = (name: string, cell: (x: ScenarioFigures) => string): string => `| ${name} | ${sc.map(cell).join(' | ')} |`;
  const heads = sc.length > 0 ? sc.map((x) => x.label) : ['value']; // --phases stall alone: no scenario columns
  const pad = heads
    .slice(1)
    .map(() => ' |')
    .join('');
  const lines = [`| figure | ${heads.join(' | ')} |`, `|---|${heads.map(() => '---').join('|')}|`];
  if (sc.length > 0)
    lines.push(
      row('rows per event', (x) => String(x.rowsPerEvent)),
      row('service throughput (own process, backlog drain)', (x) =>
        ran(x.serviceEventsPerSec) ? `${f0(x.serviceEventsPerSec)} events/s (${f1(x.serviceSeconds)} s)` : NOT_RUN,
      ),
      row('raw REST ceiling (same rows, same client and encoding, no Kafka)', (x) =>
        ran(x.ceilingEventsPerSec) ? `${f0(x.ceilingEventsPerSec)} events/s` : NOT_RUN,
      ),
      row('**service / REST ceiling** (target ≥ 0.85)', (x) =>
        ran(x.serviceEventsPerSec, x.ceilingEventsPerSec) ? f2(x.serviceEventsPerSec / x.ceilingEventsPerSec) : NOT_RUN,
      ),
      row('native Java client (BufferedMutator, same rows)', (x) =>
        ran(x.nativeEventsPerSec) ? `${f0(x.nativeEventsPerSec)} events/s (${x.nativeThreads} threads)` : NOT_RUN,
      ),
      row('**service / native** (target ≥ 0.6)', (x) =>
        ran(x.serviceEventsPerSec, x.nativeEventsPerSec) ? f2(x.serviceEventsPerSec / x.nativeEventsPerSec) : NOT_RUN,
      ),
      row('REST ceiling / native', (x) => (ran(x.ceilingEventsPerSec, x.nativeEventsPerSec) ? f2(x.ceilingEventsPerSec / x.nativeEventsPerSec) : NOT_RUN)),
      row('service CPU per 1,000 events (user + system, /proc)', (x) => (ran(x.cpuMsPer1000) ? `${f1(x.cpuMsPer1000)} ms` : NOT_RUN)),
      row('HBase process / REST gateway CPU per 1,000 events over the drain', (x) =>
        ran(x.stackCpuMsPer1000?.hbase, x.stackCpuMsPer1000?.rest)
          ? `${f1(x.stackCpuMsPer1000?.hbase ?? NaN)} / ${f1(x.stackCpuMsPer1000?.rest ?? NaN)} ms`
          : NOT_RUN,
      ),
      row('**e2e latency at 50 % load, p50 / p99** (target p99 ≤ 250 ms)', (x) =>
        ran(x.steady.p50, x.steady.p99) ? `${ms(x.steady.p50)} / ${ms(x.steady.p99)} (${f0(x.steady.achievedRate)}/s)` : NOT_RUN,
      ),
      row('at 50 % load: one REST put, p50 / p99; flush units (mean events each)', (x) =>
        ran(x.steady.putP50, x.steady.putP99)
          ? `${ms(x.steady.putP50)} / ${ms(x.steady.putP99)}; ${f0(x.steady.units)} units (${f0(x.steady.eventsPerUnit)})`
          : NOT_RUN,
      ),
      row('**service RSS peak while draining** (target ≤ 300 MB)', (x) =>
        ran(x.peakRssMiB) ? `${f0(x.peakRssMiB)} MiB (VmHWM ${f0(x.hwmMiB)} MiB)` : NOT_RUN,
      ),
      row('region write skew, service run (60 s gauge at end)', (x) =>
        ran(x.skew.serviceRun) ? `${f2(x.skew.serviceRun)} (${f2(x.skew.serviceWindow)})` : NOT_RUN,
      ),
    );
  if (r.stall !== undefined) {
    const st = r.stall;
    lines.push(
      `| **service RSS peak, REST gateway stalled ${st.stallSeconds} s** (target ≤ 300 MB) | ${f0(st.peakRssMiB)} MiB (VmHWM ${f0(st.hwmMiB)} MiB); ${f0(st.produced)} events produced at ${f0(st.rate)}/s, ${f0(st.rowsCounted)} rows counted by scan (${st.rowsCounted === st.produced ? 'all present' : `**${f0(st.produced - st.rowsCounted)} missing**`}), caught up ${f1(st.recoverSeconds)} s after the producer stopped |${pad}`,
    );
  }
  const profiled = sc.filter((x) => x.profile !== undefined);
  const out = [
    `${f0(r.events)} events per scenario, ${f0(r.ids)} ids (Zipf s=1.1), B=${r.buckets}, topic ${r.partitions} partitions, put bodies ${r.putEncoding}${ran(r.produceEventsPerSec) ? `; produce rate ${f0(r.produceEventsPerSec)} events/s` : ''}.`,
    '',
    ...lines,
  ];
  if (r.spread !== undefined) out.push('', ...spreadTable(r.spread, r.buckets));
  if (r.opentsdb !== undefined) {
    const drains = sc.map((x) => ({
      label: x.label,
      eventsPerSec: x.serviceEventsPerSec,
      cpuMsPer1000: x.cpuMsPer1000,
      hbaseCpuMsPer1000: x.stackCpuMsPer1000?.hbase,
      restCpuMsPer1000: x.stackCpuMsPer1000?.rest,
    }));
    out.push('', ...openTsdbTable(r.opentsdb, drains));
  }
  for (const x of profiled) {
    const prof = x.profile ?? {};
    const self = x.profileSelf ?? {};
    const total = Object.values(prof).reduce((a, v) => a + v, 0);
    out.push(
      '',
      `CPU profile of the service process (${x.label}; \`--cpu-prof\` over its whole life, divided by all the events it wrote — backlog and, when run, the 50 % phase; idle excluded; total ${f1(total)} ms per 1,000 events). Node/V8 built-in frames are charged to their nearest caller in a category; "self" charges every sample to the top frame only:`,
      '',
      '| category | ms per 1,000 events | share | self ms per 1,000 events |',
      '|---|---|---|---|',
    );
    for (const [k, v] of Object.entries(prof).sort((a, b) => b[1] - a[1]))
      out.push(`| ${k} | ${f2(v)} | ${((v / total) * 100).toFixed(0)} % | ${ran(self[k]) ? f2(self[k] ?? 0) : '–'} |`);
  }
  return out.join('\n');
}

/** The skew phase's table: skew on / off / unsalted, what the promoter did, latest-100, drain throughput. */
export function spreadTable(s: SpreadFigures, buckets: number): string[] {
  const k = Object.entries(s.on.promoted.byK)
    .sort((a, b) => Number(b[0]) - Number(a[0]))
    .map(([kk, n]) => `${n} × K ${kk}`)
    .join(', ');
  const ratio = s.latest.spread.p50 / s.latest.plain.p50;
  const drainRatio = s.on.drain.eventsPerSec / s.off.drain.eventsPerSec;
  return [
    `Hot ids (skew phase): the same workload streamed live at ${f0(s.rate)} events/s (ts = produce time; ${f0(s.events)} events, index on site and rack), B=${buckets}, the registry empty at the start; skew = max / mean rows written per region, over the whole stream from a cold start and over its second half.`,
    '',
    '| figure | spreading on | spreading off | unsalted (B=1, prefix splits) |',
    '|---|---|---|---|',
    `| data table skew, whole stream | ${f2(s.on.data.whole)} | ${f2(s.off.data.whole)} | ${f2(s.unsalted.data)} (${s.unsalted.dataRegions} regions) |`,
    `| **data table skew, second half** (target ≤ 1.25) | **${f2(s.on.data.secondHalf)}** | ${f2(s.off.data.secondHalf)} | |`,
    `| index table skew, whole stream | ${f2(s.on.index.whole)} | ${f2(s.off.index.whole)} | ${f2(s.unsalted.index)} (${s.unsalted.indexRegions} regions) |`,
    `| **index table skew, second half** | **${f2(s.on.index.secondHalf)}** | ${f2(s.off.index.secondHalf)} | |`,
    `| ids promoted (automatic) | ${s.on.promoted.ids}: ${k === '' ? '-' : k}; epochs began ${s.on.promoted.firstEpochS === null ? '-' : `${f0(s.on.promoted.firstEpochS)}–${f0(s.on.promoted.lastEpochS ?? 0)} s`} into the stream, half of it written at ${f0(s.on.promoted.halfAtS)} s | ${s.off.promoted.ids} | |`,
    `| live stream rate achieved | ${f0(s.on.live.rate)} events/s | ${f0(s.off.live.rate)} events/s | |`,
    `| **drain throughput**, ${f0(s.drainEvents)}-event backlog inside the epochs, fresh process (target on ≥ 0.95 × off) | ${f0(s.on.drain.eventsPerSec)} events/s (${f1(s.on.drain.cpuMsPer1000)} CPU ms / 1,000) | ${f0(s.off.drain.eventsPerSec)} events/s (${f1(s.off.drain.cpuMsPer1000)} CPU ms / 1,000) | on / off = **${f2(drainRatio)}** |`,
    `| **latest-100, p50 / p99** (${s.latest.queries} each, alternating; target spread ≤ 2 × plain at p50) | ${s.latest.spreadId} (K ${s.latest.spreadK}): ${s.latest.spread.p50.toFixed(1)} / ${s.latest.spread.p99.toFixed(1)} ms | ${s.latest.plainId} (plain): ${s.latest.plain.p50.toFixed(1)} / ${s.latest.plain.p99.toFixed(1)} ms | spread / plain p50 = **${f2(ratio)}** |`,
  ];
}

export function machineLine(m: MachineInfo): string {
  return `${m.nproc} CPU (${m.cpuModel}), ${m.ramGiB} GiB RAM, Node ${m.node}, HBase ${m.hbase} (standalone + REST gateway), Kafka ${m.kafka} (single broker)`;
}

/** Writes `<dir>/<date>.json` and `.md` (dir: bench-results/ of the project unless --results-dir). */
export function writeResults(dir: string, r: Figures): { json: string; md: string } {
  mkdirSync(dir, { recursive: true });
  const stamp = r.date.replace(/[:.]/g, '-');
  const json = `${dir}/${stamp}.json`;
  const md = `${dir}/${stamp}.md`;
  writeFileSync(json, `${JSON.stringify(r, null, 2)}\n`);
  writeFileSync(md, `# Benchmark ${r.date}\n\n\`${r.command}\`\n\nMachine: ${machineLine(r.machine)}\n\n${markdownTable(r)}\n`);
  return { json, md };
}

const BEGIN = '<!-- bench:results:begin -->';
const END = '<!-- bench:results:end -->';

/** Replaces the generated block of BENCHMARKS.md at `path` (between the markers); the rest of the file is hand-written. */
export function updateBenchmarksMd(path: string, r: Figures, resultsPath: string): void {
  const block = `${BEGIN}\nLatest run: ${r.date} — \`${r.command}\` — results file \`${resultsPath}\`\n\nMachine: ${machineLine(r.machine)}\n\n${markdownTable(r)}\n${END}`;
  const text = existsSync(path) ? readFileSync(path, 'utf8') : `# Benchmarks\n\n${BEGIN}\n${END}\n`;
  const start = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  const next = start >= 0 && end > start ? text.slice(0, start) + block + text.slice(end + END.length) : `${text}\n${block}\n`;
  writeFileSync(path, next);
}
