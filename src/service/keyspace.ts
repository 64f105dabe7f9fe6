// The one place a Keyspace is built from the configuration (the service, every CLI command, the
// benchmarks and the tests call this): B, the data key format and the index salt mode, over the spread
// registry's view when the caller has one.
import { Keyspace, NO_SPREAD, type SpreadLookup } from '../keys/index.ts';
import type { Config } from '../runtime/config.ts';

export function keyspaceOf(cfg: Config, spread: SpreadLookup = NO_SPREAD): Keyspace {
  return new Keyspace({ buckets: cfg.keys.saltBuckets, format: cfg.keys.format, indexSaltMode: cfg.index.saltMode }, spread);
}
