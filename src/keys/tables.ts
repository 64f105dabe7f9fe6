/**
 * The service's tables as one object (pure): per role (data, index, rollup, meta) the name and
 * families; built once from the configuration and injected.
 * Design notes: docs/DECISIONS.md#the-tables-object
 */

/** A table and the family its rows live in. */
export interface TableRef {
  readonly name: string;
  readonly family: string;
}

/** The rollup table: markers and the summaries written before the per-size families in `family`. */
export interface RollupTableRef extends TableRef {
  /** the family of the point blocks, every window size in it; null when the job writes none (rollup.pointBlocks.enabled false) */
  readonly pointsFamily: string | null;
}

export interface TablesLayout {
  readonly data: TableRef;
  readonly index: TableRef;
  readonly rollup: RollupTableRef;
  readonly meta: TableRef;
  /** rollups are on (rollup.enabled): ingest marks windows in the rollup table and the service rolls them up */
  readonly rollups: boolean;
}

const refOf = (t: TableRef): TableRef => Object.freeze({ name: t.name, family: t.family });

export class Tables {
  readonly data: TableRef;
  readonly index: TableRef;
  readonly rollup: RollupTableRef;
  readonly meta: TableRef;
  readonly rollups: boolean;

  constructor(layout: TablesLayout) {
    this.data = refOf(layout.data);
    this.index = refOf(layout.index);
    this.rollup = Object.freeze({ ...refOf(layout.rollup), pointsFamily: layout.rollup.pointsFamily });
    this.meta = refOf(layout.meta);
    this.rollups = layout.rollups;
  }

  /** Every table of the service, in the order the schema doctor checks them: data, index, rollup, meta. */
  get names(): string[] {
    return [this.data.name, this.index.name, this.rollup.name, this.meta.name];
  }

  /**
   * The tables whose regions the service maps (region writes, hot ids, the known series): data and
   * index, and the rollup table when rollups are on (ingest writes its markers there).
   */
  get mapped(): string[] {
    return this.rollups ? [this.data.name, this.index.name, this.rollup.name] : [this.data.name, this.index.name];
  }
}
