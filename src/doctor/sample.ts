// Pure: folds sampled rows into SampleFacts (cell and key sizes).
import type { Row } from '../hbase/index.ts';
import type { SampleFacts } from './facts.ts';

const ONE_MB = 1024 * 1024;

export class SampleAccumulator {
  #rows = 0;
  #cells = 0;
  #keyBytes = 0;
  #keyMax = 0;
  #qualBytes = 0;
  #qualMax = 0;
  #maxCell = 0;
  #maxAt: SampleFacts['maxCellAt'];
  #over1MB = 0;

  add(row: Row): void {
    this.#rows++;
    this.#keyBytes += row.row.length;
    this.#keyMax = Math.max(this.#keyMax, row.row.length);
    for (const c of row.cells) {
      this.#cells++;
      this.#qualBytes += c.qualifier.length;
      this.#qualMax = Math.max(this.#qualMax, c.qualifier.length);
      if (c.value.length >= ONE_MB) this.#over1MB++;
      if (c.value.length > this.#maxCell) {
        this.#maxCell = c.value.length;
        this.#maxAt = { row: row.row, column: c.column.toString('latin1') };
      }
    }
  }

  facts(): SampleFacts {
    return {
      rows: this.#rows,
      cells: this.#cells,
      maxCellBytes: this.#maxCell,
      ...(this.#maxAt === undefined ? {} : { maxCellAt: this.#maxAt }),
      cellsOver1MB: this.#over1MB,
      rowKeyBytes: { avg: this.#rows === 0 ? 0 : this.#keyBytes / this.#rows, max: this.#keyMax },
      qualifierBytes: { avg: this.#cells === 0 ? 0 : this.#qualBytes / this.#cells, max: this.#qualMax },
    };
  }
}
