// npm run bench:encode — CPU and bytes of one put body format against the other, on the rows the
// service writes (its own planner over generated events, index off), in 2000-row chunks like the
// write path. CPU is this process's user + system time (process.cpuUsage) of the third of three
// rounds, so JIT warm-up is left out; a small share of the service's CPU (see BENCHMARKS.md).
import { encodeCellSet } from '../src/hbase/codec.ts';
import { encodeCellSetProto } from '../src/hbase/protobuf.ts';
import { loadConfig } from '../src/runtime/config.ts';
import { planSettings } from '../src/service/settings.ts';
import { plannedRows } from './lib/bench-rows.ts';

const ROWS = 200_000;
const cfg = loadConfig({ env: {}, sets: ['index.tags=[]'] });
const rows = [...plannedRows({ count: ROWS, ids: 10_000, startTs: Date.now() - ROWS, stepMs: 1, seed: 42 }, planSettings(cfg)())];
const chunks: (typeof rows)[] = [];
for (let i = 0; i < rows.length; i += cfg.batch.maxRows) chunks.push(rows.slice(i, i + cfg.batch.maxRows));
const encoders = [
  ['json', (c: typeof rows): number => Buffer.byteLength(encodeCellSet(c))],
  ['protobuf', (c: typeof rows): number => encodeCellSetProto(c).length],
] as const;
for (const [name, encode] of encoders) {
  let line = '';
  for (let round = 0; round < 3; round++) {
    const t0 = process.cpuUsage();
    let bytes = 0;
    for (const c of chunks) bytes += encode(c);
    const u = process.cpuUsage(t0);
    line = `${name}: ${(((u.user + u.system) / 1000 / rows.length) * 1000).toFixed(2)} CPU ms per 1000 rows, ${(bytes / rows.length).toFixed(1)} bytes per row`;
  }
  process.stdout.write(`${line}\n`);
}
