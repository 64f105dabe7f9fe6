// npm run bench:blocks -- [--sets sparse,dense,…] [--rounds 7] [--series 100] [--codecs v1,v2,gorilla]
//                         [--only encode|decode --repeat N]
//
// Point blocks (src/rollup/points-block.ts, docs/DECISIONS.md#point-blocks) in this process, no HBase:
// every block of each set (block-sets.ts: the storage phase's sparse and dense sets, the compatibility
// suite's, typical monitoring series), one per series and window of each default size (1h, 1d), as
// the rollup job writes them, encoded by each codec:
//   v1       the former layout: varint offsets, 8-byte doubles
//   v2       the layout the job writes: unit steps or delta-of-deltas, scaled decimals or doubles,
//            zero runs
//   gorilla  the bit-level alternative measured and not taken (lib/bench/gorilla.ts)
// Per set and codec: encoded bytes per point (a point is in two blocks: the 1h and the 1d, so the
// figure is the family's, like the storage phase's bytes per point), the same bytes after deflate
// (node:zlib level 1 over 64 KiB runs of the concatenated blocks: a stand-in for HBase's block codec,
// which is SNAPPY in the storage phase; no Snappy implementation is installed), and CPU ns per point
// in a block to encode and to decode (the fastest of --rounds rounds over every block). Every block is
// checked to decode to its points exactly first.
// --only encode|decode --repeat N: only that loop, N times, for timing whole processes against each
// other (one codec in --codecs); --repeat 0 times the rest (making the sets, encoding them once), to
// subtract.
import { deflateRawSync } from 'node:zlib';
import { parseArgs } from 'node:util';
import { decodePointsBlock, encodePointsBlock } from '../src/rollup/index.ts';
import { blockSet, SET_NAMES, type Block, type SetName } from './lib/bench/block-sets.ts';
import { gorillaDecode, gorillaEncode } from './lib/bench/gorilla.ts';

const { values: args } = parseArgs({
  options: {
    sets: { type: 'string', default: SET_NAMES.join(',') },
    rounds: { type: 'string', default: '7' },
    series: { type: 'string', default: '100' },
    codecs: { type: 'string', default: 'v1,v2,gorilla' },
    only: { type: 'string' },
    repeat: { type: 'string', default: '20' },
  },
});

interface Codec {
  readonly encode: (b: Block) => Uint8Array;
  readonly decode: (bytes: Uint8Array, b: Block) => { ts: number[]; values: number[] };
}
const CODECS: Record<string, Codec> = {
  v1: { encode: (b) => encodePointsBlock(b.windowStart, b, 1), decode: (x, b) => decodePointsBlock(x, b.windowStart, b.windowMs) },
  v2: { encode: (b) => encodePointsBlock(b.windowStart, b), decode: (x, b) => decodePointsBlock(x, b.windowStart, b.windowMs) },
  gorilla: { encode: (b) => gorillaEncode(b.windowStart, b.ts, b.values), decode: (x, b) => gorillaDecode(x, b.windowStart) },
};

const sets = args.sets.split(',') as SetName[];
for (const s of sets) if (!SET_NAMES.includes(s)) throw new Error(`--sets: ${s} is none of ${SET_NAMES.join(', ')}`);
const codecs = args.codecs.split(',');
for (const c of codecs) if (CODECS[c] === undefined) throw new Error(`--codecs: ${c} is none of ${Object.keys(CODECS).join(', ')}`);
const rounds = Number(args.rounds);
const series = Number(args.series);
const repeat = Number(args.repeat);
if (!(rounds > 0 && series > 0 && repeat >= 0)) throw new Error('--rounds and --series must be positive, --repeat ≥ 0');

const same = (a: readonly number[], b: readonly number[]): boolean => a.length === b.length && a.every((x, i) => Object.is(x, b[i]));

/** CPU µs of `fn` (user + system), the fastest of `rounds`. */
function fastest(fn: () => void): number {
  let best = Number.POSITIVE_INFINITY;
  for (let r = 0; r < rounds; r++) {
    const t0 = process.cpuUsage();
    fn();
    const u = process.cpuUsage(t0);
    best = Math.min(best, u.user + u.system);
  }
  return best;
}

function deflated(cells: readonly Uint8Array[]): number {
  const all = Buffer.concat(cells);
  let n = 0;
  for (let at = 0; at < all.length; at += 65_536) n += deflateRawSync(all.subarray(at, at + 65_536), { level: 1 }).length;
  return n;
}

let sink = 0;
const encodeAll = (c: Codec, blocks: readonly Block[]): Uint8Array[] => blocks.map((b) => c.encode(b));
function decodeAll(c: Codec, blocks: readonly Block[], cells: readonly Uint8Array[]): void {
  for (let i = 0; i < blocks.length; i++) sink += c.decode(cells[i] as Uint8Array, blocks[i] as Block).values.length;
}

const rows: string[] = [];
for (const name of sets) {
  const set = blockSet(name, { monitoringSeries: series });
  const inBlocks = set.blocks.reduce((n, b) => n + b.ts.length, 0);
  if (args.only !== undefined) {
    const c = CODECS[codecs[0] ?? ''] as Codec;
    const cells = encodeAll(c, set.blocks);
    for (let r = 0; r < repeat; r++) {
      if (args.only === 'encode') encodeAll(c, set.blocks);
      else decodeAll(c, set.blocks, cells);
    }
    continue;
  }
  process.stdout.write(`${name}: ${set.describe}\n  ${set.points.toLocaleString('en-US')} points, ${set.blocks.length.toLocaleString('en-US')} blocks\n`);
  for (const codec of codecs) {
    const c = CODECS[codec] as Codec;
    const cells = encodeAll(c, set.blocks);
    set.blocks.forEach((b, i) => {
      const back = c.decode(cells[i] as Uint8Array, b);
      if (!same(back.ts, b.ts) || !same(back.values, b.values)) throw new Error(`${codec} does not round-trip block ${i} of ${name}`);
    });
    const bytes = cells.reduce((n, x) => n + x.length, 0);
    const enc = fastest(() => {
      encodeAll(c, set.blocks);
    });
    const dec = fastest(() => {
      decodeAll(c, set.blocks, cells);
    });
    const fig = [
      name,
      codec,
      (bytes / set.points).toFixed(2),
      (deflated(cells) / set.points).toFixed(2),
      ((enc * 1000) / inBlocks).toFixed(1),
      ((dec * 1000) / inBlocks).toFixed(1),
    ];
    rows.push(`| ${fig.join(' | ')} |`);
    process.stdout.write(`  ${codec.padEnd(8)} ${fig.slice(2).join('  ')}\n`);
  }
}
if (args.only === undefined) {
  process.stdout.write(
    ['', `| set | codec | bytes per point | after deflate | encode ns per point | decode ns per point |`, '|---|---|---:|---:|---:|---:|', ...rows, ''].join(
      '\n',
    ),
  );
}
if (sink < 0) process.stdout.write('');
