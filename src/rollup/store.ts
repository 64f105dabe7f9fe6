// The HBase operations the rollup job and the backfill need (HBaseRestClient fits). Their scans are
// paged walks (src/scans/paged-scan.ts): no REST scanner is kept open while the caller works.
import type { CheckedDelete } from '../hbase/index.ts';
import type { ScanPort } from '../scans/paged-scan.ts';
import type { PutRow } from './fold.ts';

export interface RollupStore extends ScanPort {
  put(table: string, rows: readonly PutRow[]): Promise<void>;
  checkAndDelete(table: string, del: CheckedDelete): Promise<boolean>;
}
