// Pure: cell and row-key sizes from the bounded sample scan.
import type { TableFacts } from '../facts.ts';
import { book, type Finding } from '../finding.ts';

export const CELL_ERROR_BYTES = 10 * 1024 * 1024;
export const CELL_WARN_BYTES = 1024 * 1024;
export const ROW_KEY_AVG_BYTES = 100;

const mb = (n: number): string => `${(n / (1024 * 1024)).toFixed(2)} MB`;

export function sampleFindings(t: TableFacts): Finding[] {
  const s = t.sample;
  if (s === undefined || s.cells === 0) return [];
  const out: Finding[] = [];
  if (s.maxCellBytes >= CELL_WARN_BYTES) {
    const at = s.maxCellAt === undefined ? '' : ` at row 0x${s.maxCellAt.row.subarray(0, 32).toString('hex')} column ${s.maxCellAt.column}`;
    out.push({
      rule: 'cells.size',
      severity: s.maxCellBytes > CELL_ERROR_BYTES ? 'error' : 'warn',
      subject: `table ${t.name}`,
      measured: `largest sampled cell ${mb(s.maxCellBytes)}${at}; ${s.cellsOver1MB} of ${s.cells} sampled cells ≥ 1 MB`,
      threshold: `cells no larger than 10 MB (50 MB with MOB); warn from ${mb(CELL_WARN_BYTES)}`,
      source: book('table_schema_rules_of_thumb'),
      fix: 'store large values in HDFS/object storage with a pointer in HBase, or enable MOB on the family (IS_MOB => true)',
    });
  }
  if (s.rowKeyBytes.avg > ROW_KEY_AVG_BYTES) {
    out.push({
      rule: 'rowkeys.length',
      severity: 'warn',
      subject: `table ${t.name}`,
      measured: `row keys average ${s.rowKeyBytes.avg.toFixed(0)} bytes (max ${s.rowKeyBytes.max}) over ${s.rows} sampled rows`,
      threshold: `average ≤ ${ROW_KEY_AVG_BYTES} bytes: keys are stored with every cell and in every block index`,
      source: book('keysize.row'),
      fix: 'shorten the key: hash or dictionary-encode long ids, binary timestamps instead of text',
    });
  }
  return out;
}
