// tsingest keys encode|decode: data rowkeys by hand (docs/KEYS.md). The salt bucket count B and the
// key format come from the configuration (--config / TSI_* env / --set, e.g. TSI_SALT_BUCKETS), so
// the keys match the deployment's tables; --buckets and --printable / --format override them. A spread
// id's key depends on its registry entry (its epochs), read from the meta table unless --offline (or
// --buckets names another B, for which the registry does not hold).
import {
  KEY_FORMATS,
  MAX_BUCKETS,
  MIN_BUCKETS,
  Keyspace,
  decodeAnyKey,
  epochAt,
  fixedLookup,
  saltOf,
  spreadOffset,
  kAt,
  type DecodedAnyKey,
  type KeyFormat,
  type SpreadEntry,
  type SpreadEpoch,
} from '../keys/index.ts';
import type { Config } from '../runtime/config.ts';
import { createHBaseClient } from '../service/clients.ts';
import { registryStore, tablesOf } from '../service/keyspace.ts';
import { UsageError, configOf, out, parseCommand, requiredString, stringFlag, timeFlag, type FlagValues } from './args.ts';

export const KEYS_USAGE =
  'tsingest keys encode --id ID --ts MS|ISO [--buckets B] [--printable | --format binary|printable] [--offline] | ' +
  'keys decode HEX [--buckets B] [--offline]   (B and the format default to keys.saltBuckets / keys.format of the configuration; ' +
  'the spread registry is read unless --offline; decode exits 1 when the salt is not the one the key layout gives)';

/** Where the bucket count came from, for messages. */
export type BucketsSource = '--buckets' | 'keys.saltBuckets';

/** An id's registry entry as it is now (the meta table; tests pass a fixed one). */
export type EntrySource = (cfg: Config, id: string) => Promise<SpreadEntry | undefined>;

export type DecodeReport = DecodedAnyKey & {
  readonly buckets: number;
  readonly bucketsFrom: BucketsSource;
  /** salt(id) under B: the bucket of the id's plain key */
  readonly baseSalt: number;
  /** the key's spread offset j = (salt − baseSalt) mod B */
  readonly offset: number;
  /** the registry epoch containing ts (null: none, K = 1), or null when the registry was not read */
  readonly epoch: SpreadEpoch | null;
  readonly registry: 'read' | 'not read';
  /** the salt the key layout gives (id, ts): base + j(ts, K of its epoch) mod B */
  readonly expectedSalt: number;
  readonly saltFits: boolean;
};

/** Decodes any data key (binary or printable) and checks its salt against B and the id's entry, without failing on it. */
export function decodeReport(key: Buffer, buckets: number, bucketsFrom: BucketsSource, entry?: SpreadEntry | null): DecodeReport {
  const decoded = decodeAnyKey(key);
  const baseSalt = saltOf(decoded.id, buckets);
  const known = entry ?? undefined;
  const expectedSalt = (baseSalt + spreadOffset(decoded.ts, kAt(known, decoded.ts))) % buckets;
  return {
    ...decoded,
    buckets,
    bucketsFrom,
    baseSalt,
    offset: (((decoded.salt - baseSalt) % buckets) + buckets) % buckets,
    epoch: epochAt(known, decoded.ts),
    registry: entry === undefined ? 'not read' : 'read',
    expectedSalt,
    saltFits: expectedSalt === decoded.salt,
  };
}

/** One line for stderr when the key's salt does not fit. */
export function saltMismatchMessage(r: DecodeReport): string {
  const from = r.bucketsFrom === '--buckets' ? '--buckets' : 'keys.saltBuckets of the configuration';
  const spread = r.epoch === null ? '' : ` (spread over ${r.epoch.k} buckets from ${new Date(r.epoch.since).toISOString()} on)`;
  return (
    `salt ${r.salt} of this key does not fit B=${r.buckets} (${from}): id ${JSON.stringify(r.id)} at ts ${r.ts} has salt ${r.expectedSalt}${spread} ` +
    `under B=${r.buckets}; the key was written with another bucket count (try --buckets)${r.registry === 'read' ? '' : ' or for a spread id (drop --offline)'} or is not from these tables`
  );
}

function bucketsOf(values: FlagValues, config: () => Config): { buckets: number; from: BucketsSource } {
  const raw = stringFlag(values, 'buckets');
  if (raw === undefined) return { buckets: config().keys.saltBuckets, from: 'keys.saltBuckets' };
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(n) || n < MIN_BUCKETS || n > MAX_BUCKETS) {
    throw new UsageError(`--buckets must be an integer in [${MIN_BUCKETS}, ${MAX_BUCKETS}], got "${raw}"`);
  }
  return { buckets: n, from: '--buckets' };
}

function formatOf(values: FlagValues, config: () => Config): KeyFormat {
  const raw = stringFlag(values, 'format');
  const printable = values['printable'] === true;
  if (raw !== undefined && !(KEY_FORMATS as readonly string[]).includes(raw)) {
    throw new UsageError(`--format must be one of ${KEY_FORMATS.join(', ')}, got "${raw}"`);
  }
  if (raw !== undefined && printable && raw !== 'printable') throw new UsageError('--printable contradicts --format binary');
  if (printable) return 'printable';
  return raw === undefined ? config().keys.format : (raw as KeyFormat);
}

/** Where the command writes: stdout lines and stderr lines (tests capture them). */
export interface KeysOutput {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
}

const STDIO: KeysOutput = { out, err: (line) => process.stderr.write(`${line}\n`) };

/** The id's entry from the meta table (one read). */
export const registryEntry: EntrySource = async (cfg, id) => {
  const hbase = createHBaseClient(cfg, 'tool');
  try {
    return (await registryStore(cfg, tablesOf(cfg), hbase).entry(id))?.entry;
  } finally {
    await hbase.close();
  }
};

export async function keysCommand(argv: readonly string[], io: KeysOutput = STDIO, entries: EntrySource = registryEntry): Promise<number> {
  const { values, positionals } = parseCommand(argv, {
    id: { type: 'string' },
    ts: { type: 'string' },
    buckets: { type: 'string' },
    printable: { type: 'boolean' },
    format: { type: 'string' },
    offline: { type: 'boolean' },
  });
  // The configuration is read only when a flag does not already say what it would.
  let cfg: Config | undefined;
  const config = (): Config => (cfg ??= configOf(values));
  const [sub, hex] = positionals;
  const lookup = async (id: string, b: { buckets: number; from: BucketsSource }): Promise<SpreadEntry | null | undefined> => {
    if (values['offline'] === true || (b.from === '--buckets' && b.buckets !== config().keys.saltBuckets)) return undefined;
    return (await entries(config(), id)) ?? null;
  };
  if (sub === 'encode') {
    const parts = { id: requiredString(values, 'id'), ts: timeFlag(values, 'ts') };
    const format = formatOf(values, config);
    const b = bucketsOf(values, config);
    const entry = (await lookup(parts.id, b)) ?? undefined;
    const ks = new Keyspace({ buckets: b.buckets, format, indexSaltMode: 'entry' }, fixedLookup(entry === undefined ? {} : { [parts.id]: entry }));
    io.out(ks.dataKey(parts.id, parts.ts).toString('hex'));
    return 0;
  }
  if (sub === 'decode') {
    if (hex === undefined || !/^([0-9a-fA-F]{2})+$/.test(hex)) throw new UsageError('keys decode needs the key as hex');
    const b = bucketsOf(values, config);
    const key = Buffer.from(hex, 'hex');
    const report = decodeReport(key, b.buckets, b.from, await lookup(decodeAnyKey(key).id, b));
    io.out(JSON.stringify(report));
    if (report.saltFits) return 0;
    io.err(`tsingest: ${saltMismatchMessage(report)}`);
    return 1;
  }
  throw new UsageError(`usage: ${KEYS_USAGE}`);
}
