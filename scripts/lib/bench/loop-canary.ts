// The machine's own event-loop delay beside our ingest process: a bare Node process that does nothing
// but measure its loop (monitorEventLoopDelay at the service's 10 ms resolution) and print each
// second's p99 and max. What it sees is the 2-core machine's scheduling (every process of both sides
// is runnable at once), not work of its own, so the ingest's delay above it is the ingest's.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { percentile } from './load.ts';

export interface CanaryFigures {
  /** ms: the p99 and the largest of the per-second p99s, and the largest delay seen */
  readonly p99OfP99: number;
  readonly maxOfP99: number;
  readonly max: number;
  readonly samples: number;
  /** each second's p99 (ms), in order */
  readonly perSecondP99: number[];
}

const SCRIPT = `
const { monitorEventLoopDelay } = require('node:perf_hooks');
const h = monitorEventLoopDelay({ resolution: 10 });
process.stdout.on('error', () => process.exit(0)); // the watch has gone: end quietly
h.enable();
setInterval(() => {
  const ms = (ns) => (Number.isFinite(ns) ? ns / 1e6 : 0);
  process.stdout.write(JSON.stringify({ p99: h.count === 0 ? 0 : ms(h.percentile(99)), max: h.count === 0 ? 0 : ms(h.max) }) + '\\n');
  h.reset();
}, 1000);
`;

/** Starts the canary; stop() ends it and summarises the seconds it saw. */
export function startCanary(): { stop(): CanaryFigures } {
  const child = spawn(process.execPath, ['-e', SCRIPT], { stdio: ['ignore', 'pipe', 'inherit'] });
  const p99s: number[] = [];
  let max = 0;
  let first = true;
  createInterface({ input: child.stdout }).on('line', (line) => {
    const s = JSON.parse(line) as { p99: number; max: number };
    if (first) {
      first = false; // its start-up
      return;
    }
    p99s.push(s.p99);
    max = Math.max(max, s.max);
  });
  return {
    stop: () => {
      child.kill();
      const sorted = [...p99s].sort((a, b) => a - b);
      return {
        p99OfP99: percentile(sorted, 99),
        maxOfP99: sorted.at(-1) ?? Number.NaN,
        max,
        samples: p99s.length,
        perSecondP99: p99s.map((x) => Math.round(x * 10) / 10),
      };
    },
  };
}
