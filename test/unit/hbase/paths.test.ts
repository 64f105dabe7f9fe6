import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeRowKeySegment, multiGetPath, rowPath, rowSpec, tablePath } from '../../../src/hbase/index.ts';

/** What HBase's RowSpec does with e=b64: URLDecoder.decode, then Base64.getUrlDecoder(). */
function serverDecode(segment: string): Buffer {
  return Buffer.from(decodeURIComponent(segment), 'base64url');
}

const NASTY = [
  Buffer.from([0x00]),
  Buffer.from([0xff]),
  Buffer.from([0x00, 0xff, 0x00, 0xff]),
  Buffer.from('/'),
  Buffer.from('+'),
  Buffer.from('?'),
  Buffer.from('a/b+c?d=e&f%20g,h*i'),
  Buffer.from('ü😀'),
  Buffer.from([0xfb, 0xff, 0xbf]), // base64 "+/+/"
  Buffer.from('regions', 'base64url'),
  Buffer.from('multigetAA', 'base64url'),
];

test('row key segments are base64url (no padding) and decode back on the server side', () => {
  assert.equal(encodeRowKeySegment(Buffer.from([0x00, 0xff, 0x2f, 0x2b, 0x3f, 0xc3, 0xa9])), 'AP8vKz_DqQ');
  assert.equal(encodeRowKeySegment(Buffer.from([0xfb, 0xff, 0xbf])), '-_-_');
  for (const key of NASTY) {
    const seg = encodeRowKeySegment(key);
    assert.match(seg, /^(%[0-9A-F]{2})?[A-Za-z0-9_-]*$/, `segment for ${key.toString('hex')}`);
    assert.deepEqual(serverDecode(seg), key);
  }
});

test('segments that would hit the regions/schema/scanner/exists/multiget routes are escaped', () => {
  assert.equal(encodeRowKeySegment(Buffer.from('regions', 'base64url')), '%72egions');
  assert.equal(encodeRowKeySegment(Buffer.from('multigetAA', 'base64url')), '%6DultigetAA');
  assert.equal(encodeRowKeySegment(Buffer.from('regionsA', 'base64url')), 'regionsA');
  assert.throws(() => encodeRowKeySegment(Buffer.alloc(0)), RangeError);
});

test('rowSpec / rowPath: columns, time range, timestamp, query', () => {
  const row = Buffer.from([0x00, 0xff]);
  assert.equal(rowSpec(row), 'AP8');
  assert.equal(rowSpec(row, { columns: [Buffer.from('cf:a'), Buffer.from('m')] }), 'AP8/Y2Y6YQ,bQ');
  assert.equal(rowSpec(row, { timeRange: { from: 0, to: 5 } }), 'AP8//0,5');
  assert.equal(rowSpec(row, { columns: [Buffer.from('cf')], timeRange: { from: 3, to: 5 } }), 'AP8/Y2Y/3,5');
  assert.equal(rowSpec(row, { timestamp: 99 }), 'AP8//99');
  assert.throws(() => rowSpec(row, { timeRange: { from: 5, to: 5 } }), RangeError);
  assert.throws(() => rowSpec(row, { timestamp: 0 }), RangeError);
  assert.throws(() => rowSpec(row, { columns: [Buffer.alloc(0)] }), RangeError);
  assert.equal(rowPath('t', row, {}, ['check=put']), '/t/AP8?e=b64&check=put');
  assert.equal(rowPath('ns:t', row), '/ns:t/AP8?e=b64');
});

test('multiGetPath percent-encodes each spec as a repeated row= parameter', () => {
  assert.equal(multiGetPath('t', ['AP8', 'YQ/Y2Y6YQ//1,2'], 3), '/t/multiget?e=b64&row=AP8&row=YQ%2FY2Y6YQ%2F%2F1%2C2&v=3');
});

test('tablePath validates names', () => {
  assert.equal(tablePath('it_hbase_x.y-z'), '/it_hbase_x.y-z');
  assert.equal(tablePath('default:t'), '/default:t');
  for (const bad of ['', 'a/b', 'a b', 'a?b', ':t', 'ns:', '-t']) assert.throws(() => tablePath(bad), RangeError, bad);
});
