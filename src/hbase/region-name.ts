// A region's short, stable label, for metrics and the UI (not the doctor's, which keeps a name
// without an encoded part as it is: doctor/gather.ts).
import { createHash } from 'node:crypto';

/**
 * A short stable label for a region: the encoded name (the 32 hex chars HBase puts between the last
 * two dots of `table,startKey,regionId.ENCODED.`); for names without one, the first 32 hex chars of
 * MD5(name).
 */
export function encodedRegionName(name: string): string {
  const match = /\.([0-9a-f]{32})\.?$/i.exec(name);
  if (match?.[1] !== undefined) return match[1].toLowerCase();
  return createHash('md5').update(name, 'utf8').digest('hex');
}
