export { KEY_ERROR_CODES, KeyError, type KeyErrorCode } from './key-error.ts';
export {
  MAX_ID_BYTES,
  MAX_TS,
  MIN_TS,
  REVERSE_TS_BASE,
  REVERSE_TS_BYTES,
  REVERSE_TS_DIGITS,
  encodeId,
  prefixStopRow,
  type ScanRange,
} from './key-bytes.ts';
export { DEFAULT_BUCKETS, MAX_BUCKETS, MIN_BUCKETS, assertBuckets, md5Bucket, saltOf } from './salt.ts';
export {
  KEY_FORMATS,
  decodeAnyKey,
  decodeDataKey,
  decodePrintableDataKey,
  encodeDataKey,
  encodePrintableDataKey,
  idPrefix,
  idScanRange,
  idTimeRange,
  type DataKeyParts,
  type DecodedAnyKey,
  type DecodedDataKey,
  type KeyFormat,
} from './data-key.ts';
export { bucketOfKey, planIdPrefixSplits, planSaltSplits } from './split-planner.ts';
export {
  DEFAULT_INDEX_SALT_MODE,
  INDEX_SALT_MODES,
  decodeIndexKey,
  encodeIndexKey,
  indexSaltOf,
  indexScanRanges,
  type DecodedIndexKey,
  type IndexEntry,
  type IndexSaltMode,
  type TsBounds,
} from './index-key.ts';
export {
  MAX_WINDOW_SEC,
  assertWindow,
  decodeMarkerKey,
  decodeRollupKey,
  encodeMarkerKey,
  encodeRollupKey,
  markerScanRange,
  rollupPrefix,
  rollupScanRange,
  type DecodedRollupKey,
  type RollupKeyParts,
} from './rollup-key.ts';
