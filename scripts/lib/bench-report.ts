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

export interface Figures {
  readonly date: string;
  readonly command: string;
  readonly machine: MachineInfo;
  readonly events: number;
  readonly ids: number;
  readonly buckets: number;
  readonly partitions: number;
  readonly produceEventsPerSec: number;
  readonly serviceEventsPerSec: number;
  readonly serviceSeconds: number;
  readonly ceilingEventsPerSec: number;
  readonly ratio: number;
  readonly unsaltedEventsPerSec: number;
  readonly steady: { readonly events: number; readonly targetRate: number; readonly achievedRate: number; readonly p50: number; readonly p99: number; readonly samples: number };
  readonly peakRssMiB: number;
  readonly rssBeforeServiceMiB: number;
  readonly skew: { readonly serviceRun: number; readonly serviceWindow: number; readonly saltedRaw: number; readonly unsaltedRaw: number; readonly saltedRegions: number; readonly unsaltedRegions: number };
  readonly compression: string;
}

const f0 = (n: number): string => Math.round(n).toLocaleString('en-US');
const f2 = (n: number): string => n.toFixed(2);
const ms = (s: number): string => `${(s * 1000).toFixed(0)} ms`;

export function markdownTable(r: Figures): string {
  return [
    `| figure | value |`,
    `|---|---|`,
    `| events (main phase) | ${f0(r.events)} (ids ${f0(r.ids)}, Zipf s=1.1; B=${r.buckets}; topic ${r.partitions} partitions) |`,
    `| produce rate (kafkajs, acks -1, no compression, 10 000-message sends) | ${f0(r.produceEventsPerSec)} events/s |`,
    `| service throughput (start → last event written, backlog drain) | ${f0(r.serviceEventsPerSec)} events/s (${r.serviceSeconds.toFixed(1)} s) |`,
    `| raw REST ceiling (same data rows, 2000-row chunks, 8 concurrent puts, no Kafka) | ${f0(r.ceilingEventsPerSec)} events/s |`,
    `| service / ceiling | ${f2(r.ratio)} |`,
    `| steady-phase e2e latency p50 / p99 (${f0(r.steady.events)} events at ${f0(r.steady.targetRate)}/s target, ${f0(r.steady.achievedRate)}/s achieved) | ${ms(r.steady.p50)} / ${ms(r.steady.p99)} |`,
    `| peak RSS of the bench process (service in-process) | ${r.peakRssMiB.toFixed(0)} MiB (${r.rssBeforeServiceMiB.toFixed(0)} MiB before the service started) |`,
    `| region write skew, service run (whole run, per-region counters) | ${f2(r.skew.serviceRun)} over ${r.skew.saltedRegions} regions (60 s window gauge at end: ${f2(r.skew.serviceWindow)}) |`,
    `| region write skew, same rows via REST: salted B=${r.buckets} vs unsalted B=1 | ${f2(r.skew.saltedRaw)} vs ${f2(r.skew.unsaltedRaw)} (${r.skew.unsaltedRegions} id-prefix regions) |`,
    `| unsalted raw REST write rate (for reference) | ${f0(r.unsaltedEventsPerSec)} events/s |`,
  ].join('\n');
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
