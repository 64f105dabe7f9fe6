// Benchmark output: the JSON results file, a Markdown summary, and the figures block of BENCHMARKS.md.
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';

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
  readonly peakRssMiB: number;
  readonly hwmMiB: number;
  readonly ceilingEventsPerSec: number;
  readonly nativeEventsPerSec: number;
  readonly nativeThreads: number;
  readonly steady: { readonly events: number; readonly targetRate: number; readonly achievedRate: number; readonly p50: number; readonly p99: number; readonly samples: number };
  readonly skew: { readonly serviceRun: number; readonly serviceWindow: number };
  /** CPU self time per 1,000 events by category, from the service's --cpu-prof (ms) */
  readonly profile?: Readonly<Record<string, number>>;
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
  readonly unsalted?: { readonly saltedSkew: number; readonly unsaltedSkew: number; readonly unsaltedRegions: number };
  readonly stall?: StallFigures;
  readonly compression: string;
}

const f0 = (n: number): string => Math.round(n).toLocaleString('en-US');
const f1 = (n: number): string => n.toFixed(1);
const f2 = (n: number): string => n.toFixed(2);
const ms = (s: number): string => `${(s * 1000).toFixed(0)} ms`;

export function markdownTable(r: Figures): string {
  const sc = r.scenarios;
  const row = (name: string, cell: (x: ScenarioFigures) => string): string => `| ${name} | ${sc.map(cell).join(' | ')} |`;
  const lines = [
    `| figure | ${sc.map((x) => x.label).join(' | ')} |`,
    `|---|${sc.map(() => '---').join('|')}|`,
    row('rows per event', (x) => String(x.rowsPerEvent)),
    row('service throughput (own process, backlog drain)', (x) => `${f0(x.serviceEventsPerSec)} events/s (${f1(x.serviceSeconds)} s)`),
    row('raw REST ceiling (same rows, same client and encoding, no Kafka)', (x) => `${f0(x.ceilingEventsPerSec)} events/s`),
    row('**service / REST ceiling** (target ≥ 0.85)', (x) => f2(x.serviceEventsPerSec / x.ceilingEventsPerSec)),
    row('native Java client (BufferedMutator, same rows)', (x) => `${f0(x.nativeEventsPerSec)} events/s (${x.nativeThreads} threads)`),
    row('**service / native** (target ≥ 0.6)', (x) => f2(x.serviceEventsPerSec / x.nativeEventsPerSec)),
    row('REST ceiling / native', (x) => f2(x.ceilingEventsPerSec / x.nativeEventsPerSec)),
    row('service CPU per 1,000 events (user + system, /proc)', (x) => `${f1(x.cpuMsPer1000)} ms`),
    row('**e2e latency at 50 % load, p50 / p99** (target p99 ≤ 250 ms)', (x) => `${ms(x.steady.p50)} / ${ms(x.steady.p99)} (${f0(x.steady.achievedRate)}/s)`),
    row('**service RSS peak while draining** (target ≤ 300 MB)', (x) => `${f0(x.peakRssMiB)} MiB (VmHWM ${f0(x.hwmMiB)} MiB)`),
    row('region write skew, service run (60 s gauge at end)', (x) => `${f2(x.skew.serviceRun)} (${f2(x.skew.serviceWindow)})`),
  ];
  if (r.stall !== undefined) {
    const st = r.stall;
    lines.push(`| **service RSS peak, REST gateway stalled ${st.stallSeconds} s** (target ≤ 300 MB) | ${f0(st.peakRssMiB)} MiB (VmHWM ${f0(st.hwmMiB)} MiB); ${f0(st.produced)} events produced at ${f0(st.rate)}/s, ${f0(st.rowsCounted)} rows counted by scan, caught up ${f1(st.recoverSeconds)} s after the producer stopped |${sc.slice(1).map(() => ' |').join('')}`);
  }
  if (r.unsalted !== undefined) {
    lines.push(`| region write skew, same rows via REST: salted B=${r.buckets} vs unsalted B=1 | ${f2(r.unsalted.saltedSkew)} vs ${f2(r.unsalted.unsaltedSkew)} (${r.unsalted.unsaltedRegions} id-prefix regions) |${sc.slice(1).map(() => ' |').join('')}`);
  }
  const profiled = sc.filter((x) => x.profile !== undefined);
  const out = [
    `${f0(r.events)} events per scenario, ${f0(r.ids)} ids (Zipf s=1.1), B=${r.buckets}, topic ${r.partitions} partitions, put bodies ${r.putEncoding}; produce rate ${f0(r.produceEventsPerSec)} events/s.`,
    '',
    ...lines,
  ];
  for (const x of profiled) {
    const prof = x.profile ?? {};
    const total = Object.values(prof).reduce((a, v) => a + v, 0);
    out.push('', `CPU profile of the service while draining (${x.label}; self time per 1,000 events, \`--cpu-prof\`, idle excluded; total ${f1(total)} ms):`, '', '| category | ms per 1,000 events | share |', '|---|---|---|');
    for (const [k, v] of Object.entries(prof).sort((a, b) => b[1] - a[1])) out.push(`| ${k} | ${f2(v)} | ${((v / total) * 100).toFixed(0)} % |`);
  }
  return out.join('\n');
}

export function machineLine(m: MachineInfo): string {
  return `${m.nproc} CPU (${m.cpuModel}), ${m.ramGiB} GiB RAM, Node ${m.node}, HBase ${m.hbase} (standalone + REST gateway), Kafka ${m.kafka} (single broker)`;
}

export function writeResults(root: string, r: Figures): { json: string; md: string } {
  const dir = `${root}/bench-results`;
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

/** Replaces the generated block of BENCHMARKS.md (between the markers); the rest of the file is hand-written. */
export function updateBenchmarksMd(root: string, r: Figures, resultsPath: string): void {
  const path = `${root}/BENCHMARKS.md`;
  const block = `${BEGIN}\nLatest run: ${r.date} — \`${r.command}\` — results file \`${resultsPath}\`\n\nMachine: ${machineLine(r.machine)}\n\n${markdownTable(r)}\n${END}`;
  const text = existsSync(path) ? readFileSync(path, 'utf8') : `# Benchmarks\n\n${BEGIN}\n${END}\n`;
  const start = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  const next = start >= 0 && end > start ? text.slice(0, start) + block + text.slice(end + END.length) : `${text}\n${block}\n`;
  writeFileSync(path, next);
}
