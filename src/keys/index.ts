export { KEY_ERROR_CODES, KeyError, type KeyErrorCode } from './key-error.ts';
export {
  MAX_ID_BYTES,
  MAX_TS,
  MIN_TS,
  REVERSE_TS_BASE,
  REVERSE_TS_BYTES,
  REVERSE_TS_DIGITS,
  encodeId,
  prefixRange,
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
  encodeDataKeyAt,
  encodePrintableDataKey,
  idPrefix,
  idPrefixAt,
  idScanRange,
  idTimeRange,
  type DataKeyParts,
  type DecodedAnyKey,
  type DecodedDataKey,
  type KeyFormat,
} from './data-key.ts';
export { bucketOfKey, planIdPrefixSplits, planSaltSplits, saltPrefix } from './split-planner.ts';
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
  MARKER_ROW_BYTES,
  decodeMarkedId,
  decodeMarkerKey,
  decodeRollupKey,
  encodeIdMarkerKey,
  encodeMarkerKey,
  encodeRollupKey,
  markerScanRange,
  markerWindowRange,
  rollupPrefix,
  rollupScanRange,
  TOUCH_WINDOW_SEC,
  encodeTouchKey,
  touchScanRange,
  type DecodedMarkerKey,
  type DecodedRollupKey,
  type RollupKeyParts,
} from './rollup-key.ts';
export { durationSeconds, isRollupWindowFamily, rollupWindowFamily } from './rollup-family.ts';
export {
  EMPTY_ENTRY,
  assertEntry,
  bucketSince,
  decodeEntry,
  encodeEntry,
  epochAt,
  kAt,
  maxK,
  spreadOffset,
  withEpoch,
  withFence,
  type SpreadEntry,
  type SpreadEpoch,
} from './spread.ts';
export {
  Keyspace,
  NO_SPREAD,
  fixedLookup,
  type BucketRange,
  type DecodedData,
  type DecodedIndex,
  type KeyLayout,
  type SpreadLookup,
  type TableRole,
} from './keyspace.ts';
export { Tables, type RollupTableRef, type TableRef, type TablesLayout } from './tables.ts';
export { TABLE_META } from './table-record.ts';
