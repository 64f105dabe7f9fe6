// tsingest keys encode|decode
import { decodeAnyKey, encodeDataKey, encodePrintableDataKey } from '../keys/index.ts';
import { UsageError, intFlag, out, parseCommand, requiredString, stringFlag } from './args.ts';

export const KEYS_USAGE = 'tsingest keys encode --id ID --ts MS [--buckets B] [--printable] | keys decode HEX [--buckets B]';

export function keysCommand(argv: readonly string[]): number {
  const { values, positionals } = parseCommand(argv, {
    id: { type: 'string' },
    ts: { type: 'string' },
    buckets: { type: 'string' },
    printable: { type: 'boolean' },
  });
  const [sub, hex] = positionals;
  const buckets = intFlag('buckets', stringFlag(values, 'buckets'), 16);
  if (sub === 'encode') {
    const parts = { id: requiredString(values, 'id'), ts: intFlag('ts', stringFlag(values, 'ts')) };
    const key = values['printable'] === true ? encodePrintableDataKey(parts, buckets) : encodeDataKey(parts, buckets);
    out(key.toString('hex'));
    return 0;
  }
  if (sub === 'decode') {
    if (hex === undefined || !/^([0-9a-fA-F]{2})+$/.test(hex)) throw new UsageError('keys decode needs the key as hex');
    out(JSON.stringify(decodeAnyKey(Buffer.from(hex, 'hex'), buckets)));
    return 0;
  }
  throw new UsageError(`usage: ${KEYS_USAGE}`);
}
