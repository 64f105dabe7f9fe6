// docs/KEYS.md is the project's key specification: every test vector in it is recomputed here with
// the code, and the data-key vectors also with a small independent MD5 + BigInt implementation of
// the layout, so neither the page nor the codecs can drift.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { decodeTags, encodeMetricValue, encodeTags, TAGS_QUALIFIER } from '../../../src/events/index.ts';
import {
  decodeAnyKey,
  decodeDataKey,
  decodeIndexKey,
  decodeMarkerKey,
  decodePrintableDataKey,
  decodeRollupKey,
  encodeDataKey,
  encodeIdMarkerKey,
  encodeIndexKey,
  encodeMarkerKey,
  encodePrintableDataKey,
  encodeRollupKey,
  indexSaltOf,
  saltOf,
  Keyspace,
  decodeEntry,
  encodeEntry,
  fixedLookup,
  spreadOffset,
  type IndexSaltMode,
  type SpreadEntry,
} from '../../../src/keys/index.ts';
import { entryRow } from '../../../src/spread/rows.ts';
import { decodeSeriesRow, seriesRow } from '../../../src/catalog/rows.ts';

const DOC = readFileSync(new URL('../../../docs/KEYS.md', import.meta.url), 'utf8');

/** The three reference vectors of the data rowkey contract (B = 16), as published with the design. */
const CONTRACT_VECTORS = [
  { id: 'sensor-0042', ts: 1732262400000, salt: 9, hex: '0973656e736f722d30303432007ffffe6cad1d6fff' },
  { id: 'dev-1', ts: 0, salt: 10, hex: '0a6465762d31007fffffffffffffff' },
  { id: '设备-7', ts: 1700000000123, salt: 0, hex: '00e8aebee5a4872d37007ffffe74301a9784' },
] as const;

type Row = Readonly<Record<string, string>>;

/** Rows of the markdown table whose header is exactly `columns`; backticks around a cell are dropped. */
function table(columns: readonly string[]): Row[] {
  const lines = DOC.split('\n');
  const split = (line: string): string[] =>
    line
      .trim()
      .slice(1, -1)
      .split('|')
      .map((c) => c.trim());
  const start = lines.findIndex((l) => l.startsWith('|') && JSON.stringify(split(l)) === JSON.stringify(columns));
  assert.ok(start >= 0, `docs/KEYS.md has a table with columns ${columns.join(' | ')}`);
  const rows: Row[] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const cells = split(line).map((c) => /^`(.*)`$/.exec(c)?.[1] ?? c);
    assert.equal(cells.length, columns.length, `row has ${columns.length} cells: ${line}`);
    rows.push(Object.fromEntries(columns.map((c, i) => [c, cells[i] ?? ''])));
  }
  assert.ok(rows.length > 0, `table ${columns.join(' | ')} has rows`);
  return rows;
}

const cell = (row: Row, column: string): string => {
  const v = row[column];
  assert.ok(v !== undefined, `column ${column}`);
  return v;
};
const int = (row: Row, column: string): number => {
  const v = Number(cell(row, column));
  assert.ok(Number.isSafeInteger(v), `${column} is an integer: ${cell(row, column)}`);
  return v;
};

// --- independent reference implementation of the layouts (MD5 + BigInt, no project code) ---
const MAX = (1n << 63n) - 1n;
const utf8Hex = (s: string): string => Buffer.from(s, 'utf8').toString('hex');
const hexByte = (n: number): string => n.toString(16).padStart(2, '0');
function md5Salt(hex: string, buckets: number): number {
  const digest = createHash('md5').update(Buffer.from(hex, 'hex')).digest('hex');
  return Number(BigInt(`0x${digest.slice(0, 8)}`) % BigInt(buckets));
}
const reverseHex = (ts: number): string => (MAX - BigInt(ts)).toString(16).padStart(16, '0');
const refDataKey = (id: string, ts: number, b: number): string => `${hexByte(md5Salt(utf8Hex(id), b))}${utf8Hex(id)}00${reverseHex(ts)}`;
function refPrintableKey(id: string, ts: number, b: number): string {
  const text = `${hexByte(md5Salt(utf8Hex(id), b))}${id}\u0000${(MAX - BigInt(ts)).toString().padStart(19, '0')}`;
  return utf8Hex(text);
}

const DATA_COLUMNS = ['id', 'ts', 'B', 'salt', 'key (hex)'] as const;

void test('the contract vectors are in docs/KEYS.md and the reference implementation reproduces them', () => {
  const rows = table(DATA_COLUMNS);
  for (const v of CONTRACT_VECTORS) {
    assert.equal(refDataKey(v.id, v.ts, 16), v.hex, `reference implementation, ${v.id}`);
    assert.equal(md5Salt(utf8Hex(v.id), 16), v.salt);
    const row = rows.find((r) => cell(r, 'key (hex)') === v.hex);
    assert.ok(row, `docs/KEYS.md lists ${v.hex}`);
    assert.deepEqual([cell(row, 'id'), int(row, 'ts'), int(row, 'B'), int(row, 'salt')], [v.id, v.ts, 16, v.salt]);
  }
});

void test('data rowkey vectors: code and reference implementation agree with the page, and decode back', () => {
  for (const row of table(DATA_COLUMNS)) {
    const [id, ts, b, salt, hex] = [cell(row, 'id'), int(row, 'ts'), int(row, 'B'), int(row, 'salt'), cell(row, 'key (hex)')];
    assert.equal(encodeDataKey({ id, ts }, b).toString('hex'), hex, `encodeDataKey ${id} ${ts} B=${b}`);
    assert.equal(refDataKey(id, ts, b), hex, `reference ${id} ${ts} B=${b}`);
    assert.equal(saltOf(id, b), salt);
    assert.deepEqual(decodeDataKey(Buffer.from(hex, 'hex'), b), { salt, id, ts });
    assert.equal(decodeAnyKey(Buffer.from(hex, 'hex'), b).format, 'binary');
  }
});

void test('printable data rowkey vectors: text and hex agree with the code and the reference', () => {
  for (const row of table(['id', 'ts', 'B', 'key (text)', 'key (hex)'])) {
    const [id, ts, b, text, hex] = [cell(row, 'id'), int(row, 'ts'), int(row, 'B'), cell(row, 'key (text)'), cell(row, 'key (hex)')];
    assert.equal(encodePrintableDataKey({ id, ts }, b).toString('hex'), hex, `encodePrintableDataKey ${id} B=${b}`);
    assert.equal(refPrintableKey(id, ts, b), hex, `reference ${id} B=${b}`);
    assert.equal(utf8Hex(text.replaceAll('␀', '\u0000')), hex, `text column of ${id}`);
    assert.deepEqual(decodePrintableDataKey(Buffer.from(hex, 'hex'), b), { salt: saltOf(id, b), id, ts });
    assert.equal(decodeAnyKey(Buffer.from(hex, 'hex'), b).format, 'printable');
  }
});

void test('decode vectors', () => {
  for (const row of table(['key (hex)', 'format', 'salt', 'id', 'ts'])) {
    const decoded = decodeAnyKey(Buffer.from(cell(row, 'key (hex)'), 'hex'), 16);
    assert.deepEqual(
      { format: decoded.format, salt: decoded.salt, id: decoded.id, ts: decoded.ts },
      { format: cell(row, 'format'), salt: int(row, 'salt'), id: cell(row, 'id'), ts: int(row, 'ts') },
    );
  }
});

void test('cell vectors: metric values and the tags cell', () => {
  assert.ok(DOC.includes(`\`${TAGS_QUALIFIER.toString('hex')}\``), 'the tags qualifier hex is on the page');
  assert.equal(TAGS_QUALIFIER.toString('hex'), `00${utf8Hex('tags')}`);
  for (const row of table(['value', 'cell value (hex)'])) {
    const value = Number(cell(row, 'value'));
    const ref = Buffer.alloc(8);
    new DataView(ref.buffer, ref.byteOffset, 8).setFloat64(0, value, false);
    assert.equal(encodeMetricValue(value).toString('hex'), cell(row, 'cell value (hex)'), `value ${cell(row, 'value')}`);
    assert.equal(ref.toString('hex'), cell(row, 'cell value (hex)'));
  }
  for (const row of table(['tags', 'cell value (text)', 'cell value (hex)'])) {
    const tags = JSON.parse(cell(row, 'tags')) as Record<string, string>;
    const encoded = encodeTags(tags);
    assert.equal(encoded.toString('utf8'), cell(row, 'cell value (text)'));
    assert.equal(encoded.toString('hex'), cell(row, 'cell value (hex)'));
    assert.deepEqual(decodeTags(encoded), tags);
  }
});

void test('index key vectors, in both salt modes', () => {
  const rows = table(['indexName', 'value', 'ts', 'id', 'B', 'mode', "salt'", 'key (hex)']);
  assert.deepEqual([...new Set(rows.map((r) => cell(r, 'mode')))].sort(), ['entry', 'value']);
  for (const row of rows) {
    const [indexName, value, ts, id, b] = [cell(row, 'indexName'), cell(row, 'value'), int(row, 'ts'), cell(row, 'id'), int(row, 'B')];
    const mode = cell(row, 'mode') as IndexSaltMode;
    const [salt, hex] = [int(row, "salt'"), cell(row, 'key (hex)')];
    const entry = { indexName, value, ts, id };
    assert.equal(encodeIndexKey(entry, b, mode).toString('hex'), hex, `${indexName}=${value} ${id} ${mode}`);
    assert.equal(indexSaltOf(entry, b, mode), salt);
    const hashed = mode === 'entry' ? `${utf8Hex(indexName)}00${utf8Hex(value)}00${utf8Hex(id)}` : `${utf8Hex(indexName)}00${utf8Hex(value)}`;
    assert.equal(`${hexByte(md5Salt(hashed, b))}${utf8Hex(indexName)}00${utf8Hex(value)}00${reverseHex(ts)}${utf8Hex(id)}`, hex, 'reference');
    assert.deepEqual(decodeIndexKey(Buffer.from(hex, 'hex'), b, mode), { salt, ...entry });
  }
});

void test('rollup summary, marker row and per-id marker key vectors', () => {
  const columns = ['id', 'window (s)', 'window start', 'window start (UTC)', 'B', 'summary key (hex)', 'marker row key (hex)', 'per-id marker key (hex)'];
  for (const row of table(columns)) {
    const [id, windowSec, windowStart, b] = [cell(row, 'id'), int(row, 'window (s)'), int(row, 'window start'), int(row, 'B')];
    const parts = { id, windowSec, windowStart };
    const [summary, marker, idMarker] = [cell(row, 'summary key (hex)'), cell(row, 'marker row key (hex)'), cell(row, 'per-id marker key (hex)')];
    assert.equal(new Date(windowStart).toISOString(), cell(row, 'window start (UTC)'));
    assert.equal(encodeRollupKey(parts, b).toString('hex'), summary, `summary ${id} ${windowSec}`);
    assert.equal(encodeMarkerKey(parts, b).toString('hex'), marker, `marker row ${id} ${windowSec}`);
    assert.equal(encodeIdMarkerKey(parts, b).toString('hex'), idMarker, `per-id marker ${id} ${windowSec}`);
    const salt = hexByte(md5Salt(utf8Hex(id), b));
    const window = windowSec.toString(16).padStart(8, '0');
    assert.equal(`${salt}${utf8Hex(id)}00${window}${reverseHex(windowStart)}`, summary, 'reference summary');
    assert.equal(`${salt}00${window}${BigInt(windowStart).toString(16).padStart(16, '0')}`, marker, 'reference marker row');
    assert.equal(`${marker}${utf8Hex(id)}`, idMarker, 'reference per-id marker');
    assert.deepEqual(decodeRollupKey(Buffer.from(summary, 'hex'), b), { salt: saltOf(id, b), ...parts });
    assert.deepEqual(decodeMarkerKey(Buffer.from(marker, 'hex'), b), { salt: saltOf(id, b), windowSec, windowStart, id: null });
    assert.deepEqual(decodeMarkerKey(Buffer.from(idMarker, 'hex'), b), { salt: saltOf(id, b), ...parts });
  }
});

// --- spread keys and the registry ---
/** j(ts, K) by the page's formula, independently: MD5 of int64_BE(ts) with BigInt. */
function refOffset(ts: number, k: number): number {
  if (k === 1) return 0;
  const digest = createHash('md5')
    .update(Buffer.from(BigInt(ts).toString(16).padStart(16, '0'), 'hex'))
    .digest('hex');
  return Number(BigInt(`0x${digest.slice(0, 8)}`) % BigInt(k));
}

const SPREAD_ENTRY: SpreadEntry = {
  epochs: [
    { since: 1732262400000, k: 4 },
    { since: 1732266000000, k: 16 },
  ],
  fence: null,
};

void test('KEYS.md spread offsets j(ts, K) equal the code and the independent MD5 computation', () => {
  for (const row of table(['ts', 'j (K = 2)', 'j (K = 4)', 'j (K = 16)'])) {
    const ts = int(row, 'ts');
    for (const k of [2, 4, 16]) {
      const j = int(row, `j (K = ${k})`);
      assert.equal(spreadOffset(ts, k), j, `code: ts ${ts} K ${k}`);
      assert.equal(refOffset(ts, k), j, `reference: ts ${ts} K ${k}`);
    }
  }
});

void test('KEYS.md spread key vectors: data keys (both formats) and index keys of sensor-0042 over its epochs', () => {
  const lookup = fixedLookup({ 'sensor-0042': SPREAD_ENTRY });
  const bin = new Keyspace({ buckets: 16, format: 'binary', indexSaltMode: 'entry' }, lookup);
  const prn = new Keyspace({ buckets: 16, format: 'printable', indexSaltMode: 'entry' }, lookup);
  const rows = table(['ts', 'K', 'j', 'salt', 'key (hex)', 'printable key (hex)', 'index key (hex)']);
  assert.ok(rows.some((r) => int(r, 'K') === 1) && rows.some((r) => int(r, 'K') === 16), 'vectors before and in each epoch');
  for (const row of rows) {
    const ts = int(row, 'ts');
    const j = int(row, 'j');
    const salt = int(row, 'salt');
    assert.equal(refOffset(ts, int(row, 'K')), j);
    assert.equal(bin.offsetOf('sensor-0042', ts), j);
    assert.equal((md5Salt(utf8Hex('sensor-0042'), 16) + j) % 16, salt, 'salt = (salt(id) + j) mod B');
    const plain = refDataKey('sensor-0042', ts, 16);
    assert.equal(cell(row, 'key (hex)'), `${hexByte(salt)}${plain.slice(2)}`, 'the plain key with the spread salt');
    assert.equal(bin.dataKey('sensor-0042', ts).toString('hex'), cell(row, 'key (hex)'));
    assert.equal(prn.dataKey('sensor-0042', ts).toString('hex'), cell(row, 'printable key (hex)'));
    assert.equal(prn.dataKey('sensor-0042', ts).toString('hex').slice(4), refPrintableKey('sensor-0042', ts, 16).slice(4));
    const entry = { indexName: 'site', value: 'sh-01', ts, id: 'sensor-0042' };
    assert.equal(bin.indexKey(entry, j).toString('hex'), cell(row, 'index key (hex)'));
    assert.equal(Number.parseInt(cell(row, 'index key (hex)').slice(0, 2), 16), (indexSaltOf(entry, 16, 'entry') + j) % 16);
    const hit = new Keyspace({ buckets: 16, format: 'binary', indexSaltMode: 'entry' }).decodeIndexKey(Buffer.from(cell(row, 'index key (hex)'), 'hex'));
    assert.equal(hit.dataKey.toString('hex'), cell(row, 'key (hex)'), 'the index hit gives back the data key without the registry');
  }
});

void test('KEYS.md series catalog rows: keys (independent SHA-1) and cells', () => {
  for (const row of table(['metric', 'id', 'tags', 'series row key (hex)', 'series cell (text)'])) {
    const s = { metric: cell(row, 'metric'), id: cell(row, 'id'), tags: JSON.parse(cell(row, 'tags')) as Record<string, string> };
    const r = seriesRow(s);
    const text = cell(row, 'series cell (text)');
    assert.equal(r.value.toString('utf8'), text);
    const digest = createHash('sha1').update(text, 'utf8').digest('hex').slice(0, 16);
    assert.equal(cell(row, 'series row key (hex)'), `${utf8Hex('series/')}${utf8Hex(s.metric)}00${utf8Hex(s.id)}00${digest}`);
    assert.equal(r.key.toString('hex'), cell(row, 'series row key (hex)'));
    assert.deepEqual(decodeSeriesRow(r.key, r.value), s);
  }
});

void test('KEYS.md registry rows: row keys and entry cells', () => {
  for (const row of table(['id', 'row key (hex)', 'cell value (text)'])) {
    const id = cell(row, 'id');
    assert.equal(entryRow(id).toString('hex'), cell(row, 'row key (hex)'));
    assert.equal(cell(row, 'row key (hex)'), `${utf8Hex('spread/')}${utf8Hex(id)}`);
    const entry = decodeEntry(Buffer.from(cell(row, 'cell value (text)'), 'utf8'), 16);
    assert.equal(encodeEntry(entry).toString('utf8'), cell(row, 'cell value (text)'), 'canonical');
    if (id === 'sensor-0042') assert.deepEqual(entry, SPREAD_ENTRY, 'the entry of the key vectors');
  }
});
