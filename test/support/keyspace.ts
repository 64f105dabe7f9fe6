// A Keyspace for tests that do not go through the configuration (the service builds its own with
// src/service/keyspace.ts): B buckets, a data key format and an index salt mode, over an optional
// fixed spread registry view.
import { Keyspace, NO_SPREAD, fixedLookup, type IndexSaltMode, type KeyFormat, type SpreadEntry, type SpreadLookup } from '../../src/keys/index.ts';

export function testKeyspace(
  buckets: number,
  format: KeyFormat = 'binary',
  indexSaltMode: IndexSaltMode = 'entry',
  spread: SpreadLookup = NO_SPREAD,
): Keyspace {
  return new Keyspace({ buckets, format, indexSaltMode }, spread);
}

/** A fixed registry view: id → entry. */
export function fixedSpread(entries: Readonly<Record<string, SpreadEntry>>): SpreadLookup {
  return fixedLookup(entries);
}
