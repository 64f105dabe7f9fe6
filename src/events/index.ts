export type { TsEvent } from './event.ts';
export { EVENT_ERROR_CODES, EventError, type EventErrorCode } from './event-error.ts';
export {
  DEFAULT_EVENT_LIMITS,
  DEFAULT_MAX_TS,
  HARD_MAX_CELL_BYTES,
  effectiveMaxTs,
  eventLimitsFor,
  resolveEventLimits,
  type EventLimits,
  type EventLimitsInput,
  type EventSettings,
} from './limits.ts';
export {
  DEFAULT_FIELD_MAPPING,
  EVENT_FIELDS,
  readField,
  resolveFieldMapping,
  type EventField,
  type FieldMapping,
  type FieldMappingInput,
} from './field-mapping.ts';
export { parseIsoTimestamp, parseTimeSetting, type TimestampParse } from './timestamp.ts';
export { REJECT_REASONS, describeReject, type ParseAccepted, type ParseRejected, type ParseResult, type RejectReason } from './reject.ts';
export { parseEvent, parseEventCells, type ParsedCells } from './parse.ts';
export {
  DATA_FAMILY,
  METRIC_VALUE_BYTES,
  TAGS_QUALIFIER,
  buildDataRow,
  buildEventCells,
  metricQualifier,
  decodeDataRow,
  decodeMetricValue,
  decodeTags,
  encodeMetricValue,
  encodeTags,
  NO_TAGS,
  type DataCell,
  type DataRow,
  type DecodedDataRow,
  type StoredCell,
} from './cells.ts';
export { buildIndexRows, type IndexRowSettings, type IndexSource } from './index-rows.ts';
