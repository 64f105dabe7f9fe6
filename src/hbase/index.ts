// Public API of the HBase REST client.
export { HBaseRestClient } from './client.ts';
export type { HBaseRestClientOptions, DeleteRowOptions, PutEncoding } from './client.ts';
export { encodeCellSetProto } from './protobuf.ts';
export type { CreateTableOptions, DeleteTableOptions } from './admin-ops.ts';
export type { CheckSpec, DeleteCell, MultiGetOptions } from './row-ops.ts';
export type { ScanOptions } from './scanner.ts';
export { DEFAULT_SCAN_BATCH } from './scanner.ts';
export { HBaseError, HBaseErrorCode, isAccessRefused, isRetriable, isHBaseError, classifyHttpStatus, classifyTransportError } from './errors.ts';
export type { HBaseErrorInit } from './errors.ts';
export { column, splitColumn, encodeCellSet, decodeCellSet, encodeScanner, fromB64, toB64 } from './codec.ts';
export type { ScannerSpec, WireCell, WireRow } from './codec.ts';
export {
  decodeRegions,
  decodeTableSchema,
  encodeTableSchema,
  decodeTableList,
  decodeClusterVersion,
  decodeClusterStatus,
} from './codec-admin.ts';
export { encodeFilter, filterModel } from './filters.ts';
export type { ScanFilter, Comparator, CompareOp, RowRange } from './filters.ts';
export { encodeRowKeySegment, rowSpec, rowPath, multiGetPath, tablePath, toB64Url, isValidTableName } from './paths.ts';
export type { HttpTransport, HttpRequest, HttpResponse, HttpMethod } from './transport.ts';
export { UndiciTransport } from './undici-transport.ts';
export { GatewaySetTransport, GATEWAY_OUTCOMES } from './gateway-set.ts';
export type { Gateway, GatewayObserver, GatewayOutcome, GatewaySetOptions } from './gateway-set.ts';
export { gatewayLabel } from './gateway-rules.ts';
export { SpnegoTransport, authCookie } from './spnego-transport.ts';
export type { NegotiateToken, SpnegoTransportOptions } from './spnego-transport.ts';
export { gssServiceName, kerberosToken, loadKerberos } from './kerberos-gss.ts';
export type { TransportTls, UndiciTransportOptions } from './undici-transport.ts';
export type { Authorization } from './rest-caller.ts';
export type * from './types.ts';
