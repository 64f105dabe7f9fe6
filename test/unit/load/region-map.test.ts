import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createMetrics } from '../../../src/metrics/ingest-metrics.ts';
import { regionMapObserver } from '../../../src/metrics/region-writes-metrics.ts';
import { encodedRegionName } from '../../../src/hbase/region-name.ts';
import { RegionMap, diffRegions, findRegionIndex, locateIn } from '../../../src/load/region-map.ts';
import type { RegionChange } from '../../../src/load/region-map.ts';
import { FakeSource, region, saltedRegions, seriesValue, silentLog, sleep, waitFor } from './fixtures.ts';

const key = (...bytes: number[]): Buffer => Buffer.from(bytes);

void describe('locateIn (binary search on start keys)', () => {
  void it('a single region with empty start and end keys holds every key', () => {
    const regions = [region('t', [], [])];
    for (const k of [key(), key(0x00), key(0xff), key(0xff, 0xff, 0xff), key(0x00, 0x00)]) {
      assert.equal(locateIn(regions, k), regions[0]);
    }
  });

  void it('finds the salt bucket region of 16 pre-split regions, including 0x00/0xFF edges', () => {
    const regions = saltedRegions('t', 16);
    const cases: [Buffer, number][] = [
      [key(), 0],
      [key(0x00), 0],
      [key(0x00, 0xff, 0xff), 0],
      [key(0x01), 1], // exactly a start key → that region
      [key(0x04, 0xff, 0xff, 0xff), 4], // just below the next start key
      [key(0x05, 0x00), 5],
      [key(0x0e, 0xff), 14],
      [key(0x0f), 15],
      [key(0x0f, 0xff, 0xff), 15],
      [key(0xff), 15], // beyond the last split: the last region has an empty end key
      [key(0xff, 0xff, 0xff, 0xff), 15],
    ];
    for (const [k, expected] of cases) {
      assert.equal(locateIn(regions, k), regions[expected], `key ${k.toString('hex')}`);
      assert.equal(findRegionIndex(regions, k), expected);
    }
  });

  void it('handles multi-byte binary start keys around 0x00 and 0xFF', () => {
    const regions = [
      region('t', [], [0x00, 0x00]),
      region('t', [0x00, 0x00], [0x7f]),
      region('t', [0x7f], [0xff]),
      region('t', [0xff], [0xff, 0xff]),
      region('t', [0xff, 0xff], []),
    ];
    const expect: [Buffer, number][] = [
      [key(0x00), 0], // [00] < [00 00]
      [key(0x00, 0x00), 1],
      [key(0x00, 0x00, 0x00), 1],
      [key(0x7e, 0xff), 1],
      [key(0x7f), 2],
      [key(0xfe, 0xff, 0xff), 2],
      [key(0xff), 3],
      [key(0xff, 0xfe), 3],
      [key(0xff, 0xff), 4],
      [key(0xff, 0xff, 0x00), 4],
    ];
    for (const [k, i] of expect) assert.equal(locateIn(regions, k), regions[i], `key ${k.toString('hex')}`);
  });

  void it('returns undefined outside the known regions (before the first start key, in a gap, past a bounded end)', () => {
    const partial = [region('t', [0x10], [0x20]), region('t', [0x30], [0x40])];
    assert.equal(locateIn(partial, key(0x0f)), undefined);
    assert.equal(locateIn(partial, key(0x20)), undefined); // end key is exclusive
    assert.equal(locateIn(partial, key(0x2f, 0xff)), undefined);
    assert.equal(locateIn(partial, key(0x40)), undefined);
    assert.equal(locateIn(partial, key(0x10)), partial[0]);
    assert.equal(locateIn(partial, key(0x3f, 0xff)), partial[1]);
    assert.equal(locateIn([], key(0x00)), undefined);
  });
});

void describe('encodedRegionName', () => {
  void it('takes the 32 hex chars between the last two dots', () => {
    assert.equal(encodedRegionName('tsi_data,\\x05,1732262400000.5E9D1D0A1B2C3D4E5F6A7B8C9D0E1F2A.'), '5e9d1d0a1b2c3d4e5f6a7b8c9d0e1f2a');
    assert.equal(encodedRegionName('t,,1.0123456789abcdef0123456789abcdef'), '0123456789abcdef0123456789abcdef');
  });

  void it('falls back to a stable md5 of names without an encoded part', () => {
    const a = encodedRegionName('t,,1700000000000');
    assert.match(a, /^[0-9a-f]{32}$/);
    assert.equal(encodedRegionName('t,,1700000000000'), a);
    assert.notEqual(encodedRegionName('t,,1700000000001'), a);
  });
});

void describe('diffRegions', () => {
  void it('reports appeared, vanished and moved regions by name', () => {
    const [a, b] = saltedRegions('t', 2);
    assert.ok(a !== undefined && b !== undefined);
    const bMoved = { ...b, server: 'rs2:16020' };
    const c = region('t', [0x01, 0x80], []);
    const change = diffRegions('t', [a, b], [a, bMoved, c]);
    assert.deepEqual(change.appeared, [c]);
    assert.deepEqual(change.vanished, []);
    assert.deepEqual(change.moved, [{ before: b, after: bMoved }]);
    assert.deepEqual(diffRegions('t', [a, b], [a]).vanished, [b]);
  });
});

void describe('RegionMap', () => {
  void it('is empty until loaded, then locates rows; sorts what the source returns', async () => {
    const source = new FakeSource();
    const map = new RegionMap({ source, log: silentLog });
    assert.equal(map.locate('t', key(0x03)), undefined);
    assert.equal(map.regions('t'), undefined);
    const regions = saltedRegions('t', 4);
    source.answer = [...regions].reverse();
    const change = await map.refresh('t');
    assert.equal(change.appeared.length, 4);
    assert.deepEqual(map.regions('t'), regions);
    assert.equal(map.locate('t', key(0x03, 0x99)), regions[3]);
    assert.equal(map.locate('other', key(0x03)), undefined);
    assert.deepEqual(map.tables(), ['t']);
  });

  void it('refresh replaces the regions and tells listeners what appeared and vanished', async () => {
    const source = new FakeSource();
    const map = new RegionMap({ source, log: silentLog });
    const changes: RegionChange[] = [];
    const unsubscribe = map.onChange((c) => changes.push(c));
    const before = saltedRegions('t', 2);
    source.answer = before;
    await map.refresh('t');
    // region 1 splits at [0x01 0x80]
    const [r0, r1] = before;
    assert.ok(r0 !== undefined && r1 !== undefined);
    const left = region('t', [0x01], [0x01, 0x80], { server: 'rs1:16020', id: 1700000000001 });
    const right = region('t', [0x01, 0x80], [], { server: 'rs2:16020', id: 1700000000001 });
    source.answer = [r0, left, right];
    await map.refresh('t');
    assert.equal(changes.length, 2);
    const split = changes[1];
    assert.ok(split !== undefined);
    assert.deepEqual(split.appeared, [left, right]);
    assert.deepEqual(split.vanished, [r1]);
    assert.equal(map.locate('t', key(0x01, 0x7f)), left);
    assert.equal(map.locate('t', key(0x01, 0x80)), right);
    // no change → no event
    await map.refresh('t');
    assert.equal(changes.length, 2);
    unsubscribe();
    source.answer = [r0, r1];
    await map.refresh('t');
    assert.equal(changes.length, 2);
  });

  void it('keeps the previous map when a refresh fails and counts outcomes', async () => {
    const source = new FakeSource();
    const metrics = createMetrics(undefined, { defaultMetrics: false });
    const map = new RegionMap({ source, log: silentLog, observer: regionMapObserver(metrics) });
    source.answer = saltedRegions('t', 2);
    await map.refresh('t');
    source.answer = new Error('gateway down');
    await assert.rejects(map.refresh('t'), /gateway down/);
    assert.equal(map.regions('t')?.length, 2);
    assert.equal(await seriesValue(metrics.regionMapRefresh, { table: 't', outcome: 'ok' }), 1);
    assert.equal(await seriesValue(metrics.regionMapRefresh, { table: 't', outcome: 'error' }), 1);
  });

  void it('shares one source request between concurrent refreshes of a table', async () => {
    const source = new FakeSource();
    source.answer = saltedRegions('t', 2);
    const map = new RegionMap({ source, log: silentLog });
    const [a, b] = await Promise.all([map.refresh('t'), map.refresh('t')]);
    assert.equal(source.calls, 1);
    assert.equal(a, b);
  });

  void it('a listener that throws does not break the refresh', async () => {
    const source = new FakeSource();
    source.answer = saltedRegions('t', 2);
    const map = new RegionMap({ source, log: silentLog });
    let second = 0;
    map.onChange(() => {
      throw new Error('boom');
    });
    map.onChange(() => (second += 1));
    await map.refresh('t');
    assert.equal(second, 1);
  });

  void it('markStale triggers one refresh soon, coalescing repeated marks', async () => {
    const source = new FakeSource();
    source.answer = saltedRegions('t', 2);
    const map = new RegionMap({ source, log: silentLog, staleDelayMs: 5 });
    const called = source.nextCall();
    map.markStale('t');
    map.markStale('t');
    map.markStale('t');
    await called;
    await sleep(20);
    assert.equal(source.calls, 1);
    assert.equal(map.regions('t')?.length, 2);
    map.stop();
  });

  void it('stop cancels a pending stale refresh', async () => {
    const source = new FakeSource();
    const map = new RegionMap({ source, log: silentLog, staleDelayMs: 5 });
    map.markStale('t');
    map.stop();
    map.markStale('t'); // ignored once stopped
    await sleep(20);
    assert.equal(source.calls, 0);
  });

  void it('refreshEvery refreshes every tracked table until stopped; a failing refresh is tolerated', async () => {
    const source = new FakeSource();
    source.answer = new Error('not yet');
    const map = new RegionMap({ source, log: silentLog, tables: ['a', 'b'] });
    assert.throws(() => {
      map.refreshEvery(0);
    }, RangeError);
    map.refreshEvery(5);
    await source.nextCall();
    await source.nextCall();
    assert.ok(source.calls >= 2, `calls ${source.calls}`);
    source.answer = saltedRegions('a', 3);
    await waitFor(() => map.regions('a')?.length === 3);
    map.stop();
    const calls = source.calls;
    await sleep(20);
    assert.equal(source.calls, calls);
  });
});
