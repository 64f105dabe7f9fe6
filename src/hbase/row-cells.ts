// Rows of family/qualifier cells (the events' DataRow fits) as the REST client puts them:
// `family:qualifier` columns, the column of a qualifier many rows share (a metric's, the tags
// cell's) built once per process. The write path's hot loop (src/ingest/event-writer.ts).

/** A row as the REST client's put takes it (HBaseRestClient.put fits). */
export interface RowCellsLike {
  readonly row: Buffer;
  readonly cells: readonly { readonly column: Buffer; readonly value: Buffer; readonly timestamp?: number }[];
}

/** A row of cells by family name and qualifier bytes. */
export interface FamilyRow {
  readonly key: Buffer;
  readonly cells: readonly { readonly family: string; readonly qualifier: Buffer; readonly value: Buffer; readonly timestamp: number }[];
}

/** `family:` as bytes, per family name (a handful per process). */
const familyPrefixes = new Map<string, Buffer>();
/**
 * family → qualifier Buffer → `family:qualifier`: qualifiers shared by many rows (a metric's, the
 * tags cell's: src/events/cells.ts) get their column built once; others are collected with them.
 */
const columns = new Map<string, WeakMap<Buffer, Buffer>>();

function columnOf(family: string, qualifier: Buffer): Buffer {
  let byQualifier = columns.get(family);
  if (byQualifier === undefined) columns.set(family, (byQualifier = new WeakMap()));
  const known = byQualifier.get(qualifier);
  if (known !== undefined) return known;
  let prefix = familyPrefixes.get(family);
  if (prefix === undefined) {
    prefix = Buffer.from(`${family}:`, 'utf8');
    familyPrefixes.set(family, prefix);
  }
  const column = Buffer.allocUnsafe(prefix.length + qualifier.length);
  prefix.copy(column, 0);
  qualifier.copy(column, prefix.length);
  byQualifier.set(qualifier, column);
  return column;
}

export function toRowCells(row: FamilyRow): RowCellsLike {
  const cells = new Array<RowCellsLike['cells'][number]>(row.cells.length);
  for (let i = 0; i < row.cells.length; i++) {
    const c = row.cells[i] as FamilyRow['cells'][number];
    cells[i] = { column: columnOf(c.family, c.qualifier), value: c.value, timestamp: c.timestamp };
  }
  return { row: row.key, cells };
}
