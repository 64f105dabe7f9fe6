// Before a delete: is anything of the id there at all? One probe per data bucket (the first row of the
// id's prefix, any time), one of its summary prefix, its registry entry and the catalog. Nothing found:
// the id was never seen, or is gone already, and the delete says so without walking every place.
import { column } from '../hbase/codec.ts';
import { SERIES_RANGE, SERIES_QUALIFIER, seriesKeyId } from '../catalog/rows.ts';
import { ENTRY_QUALIFIER, entryRow } from '../spread/rows.ts';
import { scanPages } from '../scans/paged-scan.ts';
import { runLimited } from '../toolkit/pool.ts';
import type { DeletePort } from './delete-id.ts';
import { dataScans, summaryScans } from './plan.ts';
import type { DeleteSettings } from './delete-settings.ts';

async function anyRow(port: DeletePort, table: string, range: { startRow: Buffer; stopRow: Buffer }): Promise<boolean> {
  for await (const page of scanPages(port, table, { ...range, pageRows: 1 })) return page.length > 0;
  return false;
}

/** Whether the id has a data row in any bucket, a summary, a registry entry or a catalog row. */
export async function idSeen(port: DeletePort, s: DeleteSettings, concurrency = 8): Promise<boolean> {
  const found: boolean[] = [];
  await runLimited(dataScans(s.keyspace, s.id, null), concurrency, async (d) => {
    found.push(await anyRow(port, s.data.name, d.range));
  });
  if (found.includes(true)) return true;
  for (const r of summaryScans(s.keyspace, s.id, s.windows, null)) if (await anyRow(port, s.rollup.name, r)) return true;
  const col = column(s.meta.family, ENTRY_QUALIFIER);
  const entry = await port.get(s.meta.name, entryRow(s.id), { columns: [col] });
  if (entry?.cells.some((c) => c.column.equals(col)) === true) return true;
  for await (const page of scanPages(port, s.meta.name, { ...SERIES_RANGE, pageRows: 1000, columns: [column(s.meta.family, SERIES_QUALIFIER)] })) {
    if (page.some((r) => seriesKeyId(r.row) === s.id)) return true;
  }
  return false;
}
