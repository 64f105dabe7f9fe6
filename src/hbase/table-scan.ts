// Pure: a scan's first page as ONE request, `GET /<table>/*?startrow=…&endrow=…&limit=N`
// (TableScanResource), instead of a stateful scanner's create + page + delete. The 2.6 gateway reads
// startrow, endrow and column as query strings and turns them into bytes as UTF-8, with no base64
// option, so this only fits a scan whose bounds and columns are valid UTF-8 (an id's prefix range
// under B ≤ 128 is; a bound with a reverse timestamp is not) and that has no filter (the endpoint
// takes a different filter language). Otherwise null: the caller opens a scanner.
import type { ScannerSpec } from './codec.ts';
import { tablePath } from './paths.ts';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The bytes as the string the gateway will read back to exactly these bytes, or null. */
function utf8(bytes: Buffer): string | null {
  try {
    const text = strictUtf8.decode(bytes);
    return Buffer.from(text, 'utf8').equals(bytes) ? text : null;
  } catch {
    return null;
  }
}

/** The stateless scan path of the first `rows` rows, or null when the scan cannot be one request. */
export function tableScanPath(table: string, opts: Omit<ScannerSpec, 'batch' | 'caching'>, rows: number): string | null {
  if (opts.filter !== undefined) return null;
  const params: string[] = [];
  const add = (name: string, value: string): void => {
    params.push(`${name}=${encodeURIComponent(value)}`);
  };
  for (const [name, bound] of [
    ['startrow', opts.startRow],
    ['endrow', opts.stopRow],
  ] as const) {
    if (bound === undefined || bound.length === 0) continue;
    const text = utf8(bound);
    if (text === null) return null;
    add(name, text);
  }
  for (const c of opts.columns ?? []) {
    const text = utf8(c);
    // The gateway trims each column (Java's String.trim drops characters ≤ U+0020 at either end).
    if (text === null || text.length === 0 || text.charCodeAt(0) <= 0x20 || text.charCodeAt(text.length - 1) <= 0x20) return null;
    add('column', text);
  }
  if (opts.timeRange !== undefined) {
    add('starttime', String(opts.timeRange.from));
    add('endtime', String(opts.timeRange.to));
  }
  add('maxversions', String(opts.maxVersions ?? 1));
  if (opts.cacheBlocks === false) add('cacheblocks', 'false');
  add('limit', String(rows));
  return `${tablePath(table)}/*?${params.join('&')}`;
}
