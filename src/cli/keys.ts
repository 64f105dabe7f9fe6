// tsingest keys encode|decode: data rowkeys by hand (docs/KEYS.md). The salt bucket count B and the
// key format come from the configuration (--config / TSI_* env / --set, e.g. TSI_SALT_BUCKETS), so
// the keys match the deployment's tables; --buckets and --printable / --format override them.
import { KEY_FORMATS, MAX_BUCKETS, MIN_BUCKETS, decodeAnyKey, encodeDataKey, encodePrintableDataKey, saltOf, type DecodedAnyKey, type KeyFormat } from '../keys/index.ts';
import type { Config } from '../runtime/config.ts';
import { UsageError, configOf, out, parseCommand, requiredString, stringFlag, timeFlag, type FlagValues } from './args.ts';

export const KEYS_USAGE =
  'tsingest keys encode --id ID --ts MS|ISO [--buckets B] [--printable | --format binary|printable] | ' +
  'keys decode HEX [--buckets B]   (B and the format default to keys.saltBuckets / keys.format of the configuration; ' +
  'decode exits 1 when the salt does not fit B)';

/** Where the bucket count came from, for messages. */
export type BucketsSource = '--buckets' | 'keys.saltBuckets';

export type DecodeReport = DecodedAnyKey & {
  readonly buckets: number;
  readonly bucketsFrom: BucketsSource;
  /** the salt the id has under `buckets`; equal to `salt` when the key fits the configuration */
  readonly expectedSalt: number;
  readonly saltFits: boolean;
};

/** Decodes any data key (binary or printable) and checks its salt against B without failing on it. */
export function decodeReport(key: Buffer, buckets: number, bucketsFrom: BucketsSource): DecodeReport {
  const decoded = decodeAnyKey(key);
  const expectedSalt = saltOf(decoded.id, buckets);
  return { ...decoded, buckets, bucketsFrom, expectedSalt, saltFits: expectedSalt === decoded.salt };
}

/** One line for stderr when the key's salt does not fit B. */
export function saltMismatchMessage(r: DecodeReport): string {
  const from = r.bucketsFrom === '--buckets' ? '--buckets' : 'keys.saltBuckets of the configuration';
  return (
    `salt ${r.salt} of this key does not fit B=${r.buckets} (${from}): id ${JSON.stringify(r.id)} has salt ${r.expectedSalt} ` +
    `under B=${r.buckets}; the key was written with another bucket count (try --buckets) or is not from these tables`
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

export function keysCommand(argv: readonly string[], io: KeysOutput = STDIO): number {
  const { values, positionals } = parseCommand(argv, {
    id: { type: 'string' },
    ts: { type: 'string' },
    buckets: { type: 'string' },
    printable: { type: 'boolean' },
    format: { type: 'string' },
  });
  // The configuration is read only when a flag does not already say what it would.
  let cfg: Config | undefined;
  const config = (): Config => (cfg ??= configOf(values));
  const [sub, hex] = positionals;
  if (sub === 'encode') {
    const parts = { id: requiredString(values, 'id'), ts: timeFlag(values, 'ts') };
    const format = formatOf(values, config);
    const { buckets } = bucketsOf(values, config);
    const key = format === 'printable' ? encodePrintableDataKey(parts, buckets) : encodeDataKey(parts, buckets);
    io.out(key.toString('hex'));
    return 0;
  }
  if (sub === 'decode') {
    if (hex === undefined || !/^([0-9a-fA-F]{2})+$/.test(hex)) throw new UsageError('keys decode needs the key as hex');
    const { buckets, from } = bucketsOf(values, config);
    const report = decodeReport(Buffer.from(hex, 'hex'), buckets, from);
    io.out(JSON.stringify(report));
    if (report.saltFits) return 0;
    io.err(`tsingest: ${saltMismatchMessage(report)}`);
    return 1;
  }
  throw new UsageError(`usage: ${KEYS_USAGE}`);
}
