// tsingest spread list | spread set --id ID --k K — the spread registry by hand (docs/HOT-IDS.md).
// `set` appends an epoch exactly as the automatic promoter does (check-and-put, since = now +
// keys.spread.leadMs, after the id's last epoch and its fence); K never shrinks.
import { kAt, maxK, type SpreadEntry } from '../keys/index.ts';
import { createHBaseClient } from '../service/clients.ts';
import { spreadMaxK, spreadRegistryOf, tablesOf } from '../service/keyspace.ts';
import { UsageError, configOf, out, parseCommand, requiredString } from './args.ts';

export const SPREAD_USAGE = 'tsingest spread list [--json] | spread set --id ID --k K   (K: 2 … keys.spread.maxK; it never shrinks)';

const iso = (ms: number): string => new Date(ms).toISOString();

function describe(id: string, e: SpreadEntry, now: number): string {
  const epochs = e.epochs.map((x) => `K ${x.k} from ${iso(x.since)}${x.since > now ? ` (in ${Math.ceil((x.since - now) / 1000)} s)` : ''}`);
  return `${id}: K now ${kAt(e, now)}; ${epochs.length === 0 ? 'no epochs' : epochs.join(', ')}${e.fence === null ? '' : `; fence ${iso(e.fence)}`}`;
}

export async function spreadCommand(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseCommand(argv, { id: { type: 'string' }, k: { type: 'string' }, json: { type: 'boolean' } });
  const sub = positionals[0];
  if (positionals.length !== 1 || (sub !== 'list' && sub !== 'set')) throw new UsageError(`usage: ${SPREAD_USAGE}`);
  const cfg = configOf(values);
  let k = 0;
  let id = '';
  if (sub === 'set') {
    id = requiredString(values, 'id');
    const raw = requiredString(values, 'k');
    k = Number(raw);
    const cap = spreadMaxK(cfg);
    if (!Number.isInteger(k) || k < 2 || k > cap)
      throw new UsageError(`--k must be an integer in [2, ${cap}] (keys.spread.maxK, B = ${cfg.keys.saltBuckets}), got "${raw}"`);
  }
  const tables = tablesOf(cfg);
  const hbase = createHBaseClient(cfg, 'tool');
  try {
    const registry = spreadRegistryOf(cfg, tables, hbase);
    await registry.refresh();
    const now = Date.now();
    if (sub === 'list') {
      const entries = [...registry.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      for (const [eid, e] of entries) {
        out(values['json'] === true ? JSON.stringify({ id: eid, kNow: kAt(e, now), epochs: e.epochs, fence: e.fence }) : describe(eid, e, now));
      }
      if (values['json'] !== true) out(`${entries.filter(([, e]) => e.epochs.length > 0).length} spread id(s) in ${tables.meta.name}`);
      return 0;
    }
    const before = registry.entryOf(id);
    const epoch = await registry.promote(id, k, 'manual');
    const after = registry.entryOf(id) ?? { epochs: [], fence: null };
    if (epoch === null) {
      process.stderr.write(`tsingest: ${id} already spreads over ${maxK(before ?? after)} buckets, not fewer than ${k}: K never shrinks\n`);
      out(describe(id, after, now));
      return 1;
    }
    out(`${id}: K ${epoch.k} from ${iso(epoch.since)} (in ${Math.ceil((epoch.since - now) / 1000)} s: every instance refreshes the registry first)`);
    out(describe(id, after, now));
    return 0;
  } finally {
    await hbase.close();
  }
}
