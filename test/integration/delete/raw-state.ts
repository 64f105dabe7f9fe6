// Everything of one id in the four tables, found by a raw scan of each table whole and a decode of
// every key (never through the delete's own scans): what the delete tests hold a delete against.
import { seriesKeyId } from '../../../src/catalog/rows.ts';
import { decodeIndexKey } from '../../../src/keys/index.ts';
import { keyspaceOf } from '../../../src/service/keyspace.ts';
import { idOfEntryRow } from '../../../src/spread/rows.ts';
import { retryingRest, type Harness } from '../../support/service-harness.ts';

export interface IdState {
  data: number;
  dataTs: number[];
  index: number;
  summaries: number;
  markerCells: number;
  catalog: number;
  registry: number;
}

export const NOTHING: IdState = { data: 0, dataTs: [], index: 0, summaries: 0, markerCells: 0, catalog: 0, registry: 0 };

export async function stateOf(h: Harness, id: string, sets: readonly string[]): Promise<IdState> {
  return retryingRest('scan all tables', async () => {
    const ks = keyspaceOf(h.config(['kafka.groupId=unused', ...sets]));
    const s: IdState = { ...NOTHING, dataTs: [] };
    for await (const row of h.rest.scan(h.names.data, { batch: 5000 })) {
      const d = ks.decodeDataKey(row.row);
      if (d.id === id) s.dataTs.push(d.ts);
    }
    s.data = s.dataTs.length;
    for await (const row of h.rest.scan(h.names.index, { batch: 5000 })) if (decodeIndexKey(row.row).id === id) s.index++;
    const qualifier = Buffer.from(id, 'utf8');
    for await (const row of h.rest.scan(h.names.rollup, { batch: 5000 })) {
      if (row.row[1] === 0x00) {
        const m = ks.decodeMarkerKey(row.row);
        if (m.id === id) s.markerCells++;
        else if (m.id === null) s.markerCells += row.cells.filter((c) => c.qualifier.equals(qualifier)).length;
      } else if (ks.decodeRollupKey(row.row).id === id) s.summaries++;
    }
    for await (const row of h.rest.scan(h.names.meta, { batch: 5000 })) {
      if (seriesKeyId(row.row) === id) s.catalog++;
      if (idOfEntryRow(row.row) === id) s.registry++;
    }
    return s;
  });
}
