// Pure: a table's own record of this service's layout (written by `tsingest tables apply`), so the
// doctor checks the key-space rules on any table that carries it, by whatever name.
import { MAX_BUCKETS, MIN_BUCKETS, TABLE_META } from '../keys/index.ts';
import type { ServiceLayout } from './facts.ts';

const ROLES = ['data', 'index', 'rollup', 'meta'] as const;

/** The layout recorded in the table attributes, or undefined for a table this service did not make. */
export function layoutFromAttributes(attrs: Readonly<Record<string, string>>): ServiceLayout | undefined {
  const buckets = Number(attrs[TABLE_META.buckets]);
  const format = attrs[TABLE_META.keyFormat];
  if (!Number.isInteger(buckets) || buckets < MIN_BUCKETS || buckets > MAX_BUCKETS || format === undefined) return undefined;
  const roleAttr = attrs[TABLE_META.role];
  const role = ROLES.find((r) => r === roleAttr) ?? (format.endsWith(':spread-registry') ? 'meta' : 'data');
  return { role, buckets, saltFormat: format.endsWith(':printable') ? 'printable' : 'binary' };
}
