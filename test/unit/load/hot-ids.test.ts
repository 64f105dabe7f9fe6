import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Registry } from 'prom-client';
import { encodeDataKey, encodePrintableDataKey } from '../../../src/keys/index.ts';
import { encodedRegionName } from '../../../src/hbase/region-name.ts';
import { RegionMap } from '../../../src/load/region-map.ts';
import { HotIds } from '../../../src/load/hot-ids.ts';
import { HOT_ID_METRICS, registerHotIdMetrics } from '../../../src/metrics/hot-id-metrics.ts';
import { testKeyspace } from '../../support/keyspace.ts';
import { createMetrics } from '../../../src/metrics/ingest-metrics.ts';
import { meteredRegionWrites } from '../../../src/metrics/region-writes-metrics.ts';
import { writeObserver } from '../../../src/service/observers.ts';
import { FakeSource, saltedRegions, silentLog } from './fixtures.ts';

const TABLE = 'tsi_data';
const B = 4;

/** DESIGN.md salt, computed here independently of src/keys. */
const md5Salt = (id: string): number => createHash('md5').update(id, 'utf8').digest().readUInt32BE(0) % B;

/** Series of one metric from the registry's text exposition: label string → value. */
async function series(registry: Registry, name: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const line of (await registry.metrics()).split('\n')) {
    const m = new RegExp(`^${name}(\\{.*\\})? (\\S+)$`).exec(line);
    if (m !== null) out.set(m[1] ?? '', Number(m[2]));
  }
  return out;
}

async function setup(
  extra: { top?: number; windowMs?: number } = {},
): Promise<{ registry: Registry; hot: HotIds; unregister: () => void; clock: { t: number }; regions: ReturnType<typeof saltedRegions> }> {
  const registry = new Registry();
  const source = new FakeSource();
  const regions = saltedRegions(TABLE, B);
  source.answer = regions;
  const map = new RegionMap({ source, log: silentLog });
  await map.refresh(TABLE);
  const clock = { t: 1_000_000 };
  const hot = new HotIds({ table: TABLE, keyspace: testKeyspace(B), regions: map, capacity: 16, now: () => clock.t, ...extra });
  return { registry, hot, unregister: registerHotIdMetrics(registry, hot), clock, regions };
}

void describe('HotIds', () => {
  void it('counts ids decoded from data keys, with their salt bucket and region', async () => {
    const { hot, regions } = await setup({ top: 3 });
    const keys = [
      ...Array.from({ length: 50 }, (_, i) => encodeDataKey({ id: 'pump-7', ts: 1_700_000_000_000 + i }, B)),
      ...Array.from({ length: 20 }, (_, i) => encodeDataKey({ id: 'valve-2', ts: 1_700_000_000_000 + i }, B)),
      ...Array.from({ length: 30 }, (_, i) => encodeDataKey({ id: `cold-${i}`, ts: 1_700_000_000_000 }, B)),
    ];
    hot.recordDataKeys(keys);
    hot.recordDataKeys([Buffer.from('not a key')]);
    const snap = hot.snapshot();
    assert.equal(snap.total, 100);
    assert.equal(snap.undecodable, 1);
    assert.equal(snap.errorBound, 100 / 16);
    const [first, second] = snap.ids;
    const regionOf = (id: string): string => encodedRegionName(regions[md5Salt(id)]?.name ?? '');
    assert.deepEqual(first, {
      id: 'pump-7',
      events: 50,
      error: 0,
      share: 0.5,
      bucket: md5Salt('pump-7'),
      k: 1,
      epoch: null,
      region: regionOf('pump-7'),
      server: 'rs1:16020',
    });
    assert.deepEqual(second, {
      id: 'valve-2',
      events: 20,
      error: 0,
      share: 0.2,
      bucket: md5Salt('valve-2'),
      k: 1,
      epoch: null,
      region: regionOf('valve-2'),
      server: 'rs1:16020',
    });
    assert.equal(snap.ids.length, 3);
  });

  void it('reports only live writes (event time within the window) for automatic spreading; the page counts all', async () => {
    const { hot } = await setup();
    const now = Date.now();
    // A backlog two days old for "old", live events for "live" and "mixed".
    hot.recordIds(
      ['old', 'old', 'old', 'live', 'mixed', 'mixed'],
      [now - 172_800_000, now - 172_800_000, now - 172_800_000, now - 1000, now, now - 172_800_000],
    );
    assert.deepEqual(
      hot.snapshot().ids.map((h) => [h.id, h.events]),
      [
        ['old', 3],
        ['mixed', 2],
        ['live', 1],
      ],
    );
    const load = hot.load(10);
    assert.equal(load.total, 2);
    assert.deepEqual(load.top, [
      ['live', 1],
      ['mixed', 1],
    ]);
    hot.recordIds(['no-ts']);
    assert.equal(hot.load(10).total, 2, 'ids without their ts are not live writes');
    hot.recordDataKeys([testKeyspace(B).dataKey('k', now - 500)]);
    assert.deepEqual(
      hot
        .load(10)
        .top.map(([id]) => id)
        .sort(),
      ['k', 'live', 'mixed'],
      'a decoded key brings its ts',
    );
  });

  void it('decodes printable keys when the table uses them', () => {
    const hot = new HotIds({ table: TABLE, keyspace: testKeyspace(B, 'printable') });
    hot.recordDataKeys([encodePrintableDataKey({ id: 'dev-1', ts: 5 }, B), encodePrintableDataKey({ id: 'dev-1', ts: 6 }, B)]);
    assert.deepEqual(
      hot.snapshot().ids.map((h) => [h.id, h.events, h.region]),
      [['dev-1', 2, '']],
    );
  });

  void it('exports only the current top K as gauge series, removing those that fall out', async () => {
    const { registry, hot, clock } = await setup({ top: 2, windowMs: 10_000 });
    hot.recordIds([...Array.from({ length: 9 }, () => 'a'), ...Array.from({ length: 5 }, () => 'b'), 'c', 'd']);
    assert.deepEqual(
      await series(registry, HOT_ID_METRICS.events),
      new Map([
        ['{id="a"}', 9],
        ['{id="b"}', 5],
      ]),
    );
    assert.deepEqual(await series(registry, HOT_ID_METRICS.windowEvents), new Map([['', 16]]));
    const info = await series(registry, HOT_ID_METRICS.info);
    assert.equal(info.size, 2);
    assert.ok(
      [...info.keys()].some((k) => k.includes('id="a"') && k.includes(`bucket="${md5Salt('a')}"`)),
      [...info.keys()].join(' '),
    );

    clock.t += 11_000; // everything above left the window
    for (let i = 0; i < 500; i++) hot.recordIds([`many-${i}`, `many-${i % 7}`, 'z', 'z']);
    const now = await series(registry, HOT_ID_METRICS.events);
    assert.equal(now.size, 2, 'cardinality stays ≤ K whatever the number of distinct ids');
    assert.equal(now.get('{id="z"}'), 1000);
    assert.equal(now.has('{id="a"}'), false);
  });

  void it('escapes ids in label values', async () => {
    const { registry, hot } = await setup({ top: 1 });
    hot.recordIds(['say "hi"\\']);
    assert.deepEqual(await series(registry, HOT_ID_METRICS.events), new Map([['{id="say \\"hi\\"\\\\"}', 1]]));
  });

  void it('is fed by the write observer with the acknowledged keys of the data table only', async () => {
    const metrics = createMetrics(undefined, { defaultMetrics: false });
    const source = new FakeSource();
    source.answer = saltedRegions(TABLE, B);
    const map = new RegionMap({ source, log: silentLog });
    await map.refresh(TABLE);
    const { writes, close } = meteredRegionWrites(metrics, { regionMap: map });
    const hot = new HotIds({ table: TABLE, keyspace: testKeyspace(B) });
    const observer = writeObserver(metrics, writes, map, hot);
    const rows = (id: string, n: number): { key: Buffer; bucket: number }[] =>
      Array.from({ length: n }, (_, i) => ({ key: encodeDataKey({ id, ts: 1000 + i }, B), bucket: md5Salt(id) }));
    observer.written(TABLE, [...rows('a', 3), ...rows('b', 1)], 0.01);
    observer.written('tsi_index', rows('c', 5), 0.01);
    assert.deepEqual(
      hot.snapshot().ids.map((h) => [h.id, h.events]),
      [
        ['a', 3],
        ['b', 1],
      ],
    );
    close();
  });

  void it('its gauges are removed by the function that registered them; a bad top is rejected', async () => {
    const { registry, unregister } = await setup();
    unregister();
    for (const name of Object.values(HOT_ID_METRICS)) assert.equal(registry.getSingleMetric(name), undefined);
    assert.throws(() => new HotIds({ table: TABLE, keyspace: testKeyspace(B), top: 20, capacity: 10 }), /top must be an integer in 1…capacity \(10\), got 20/);
  });
});
