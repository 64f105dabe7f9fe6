// After a delete: every place scanned again (plan.ts), counting what is left of the id. Data: the
// id's prefix (or range) in every bucket; index: every bucket's rows of each (tag, value) the deleted
// rows carried, over their ts span, decoded and compared on the whole id; summaries and markers as
// the delete scans them; for a whole-id delete the catalog and the registry entry too.
import { column } from '../hbase/codec.ts';
import { SERIES_RANGE, seriesKeyId } from '../catalog/rows.ts';
import { decodeIndexKey } from '../keys/index.ts';
import { ENTRY_QUALIFIER, entryRow } from '../spread/rows.ts';
import { scanPages } from '../scans/paged-scan.ts';
import { runLimited } from '../toolkit/pool.ts';
import type { Seen } from './delete-checkpoint.ts';
import type { DeletePort, PlaceCounts } from './delete-id.ts';
import { dataScans, indexCheckRanges, markerAction, markerScan, summaryScans } from './plan.ts';
import type { DeleteSettings } from './delete-settings.ts';

export type Leftovers = PlaceCounts;

export function totalLeft(l: Leftovers): number {
  return l.dataRows + l.indexRows + l.summaries + l.markerCells + l.catalogRows + l.registryEntries;
}

const PAGE = 1000;

export async function verifyDeleted(port: DeletePort, s: DeleteSettings, seen: Seen, concurrency = 8): Promise<Leftovers> {
  const left: Leftovers = { dataRows: 0, indexRows: 0, summaries: 0, markerCells: 0, catalogRows: 0, registryEntries: 0 };
  const count = async (
    table: string,
    range: { startRow: Buffer; stopRow: Buffer },
    keep: (row: { row: Buffer; cells: readonly { qualifier: Buffer; value: Buffer; timestamp: number }[] }) => boolean = () => true,
  ): Promise<number> => {
    let n = 0;
    for await (const page of scanPages(port, table, { ...range, pageRows: PAGE })) n += page.filter(keep).length;
    return n;
  };
  await runLimited(dataScans(s.keyspace, s.id, s.range), concurrency, async (d) => {
    const n = await count(s.data.name, d.range); // read the total after the await: scans run side by side
    left.dataRows += n;
  });
  if (seen.minTs !== null && seen.maxTs !== null) {
    const { minTs, maxTs } = seen;
    const ranges = seen.values.flatMap((v) => indexCheckRanges(s.keyspace, v, minTs, maxTs));
    const inRange = (ts: number): boolean => s.range === null || (ts >= s.range.from && ts < s.range.to);
    await runLimited(ranges, concurrency, async (r) => {
      const n = await count(s.index.name, r, (row) => {
        const d = decodeIndexKey(row.row);
        return d.id === s.id && inRange(d.ts);
      });
      left.indexRows += n;
    });
  }
  for (const r of summaryScans(s.keyspace, s.id, s.windows, s.range)) {
    const n = await count(s.rollup.name, r);
    left.summaries += n;
  }
  left.markerCells = await count(s.rollup.name, markerScan(s.keyspace, s.id), (row) => markerAction(s, row) !== null);
  if (s.range === null) {
    left.catalogRows = await count(s.meta.name, SERIES_RANGE, (row) => seriesKeyId(row.row) === s.id);
    const col = column(s.meta.family, ENTRY_QUALIFIER);
    const entry = await port.get(s.meta.name, entryRow(s.id), { columns: [col] });
    left.registryEntries = entry?.cells.some((c) => c.column.equals(col)) === true ? 1 : 0;
  }
  return left;
}
