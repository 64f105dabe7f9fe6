// The real service writes the series catalog: after consuming events of several metrics, ids and tag
// sets, the meta table holds exactly one row per series, and a second pass of the same events writes
// no catalog row (tsingest_catalog_rows_written_total does not move; the cache knows every series),
// nor does a third pass after a restart (the process starts with the catalog's series remembered).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SeriesIndex } from '../../../src/catalog/series-index.ts';
import { CatalogStore } from '../../../src/catalog/store.ts';
import { createHarness, eventsProcessed, produceEvents, startInProcess, waitForCommittedAtEnd, waitForEvents } from '../../support/service-harness.ts';
import { uniqueName } from '../../support/env.ts';
import { buildFilter } from '../../../src/series-language/filters.ts';
import { catalogEvents, catalogLines, seriesOfEvents } from './helpers.ts';

void test('ingest writes one catalog row per series; a second pass of the same events writes none', async (t) => {
  const h = await createHarness(t, { prefix: 'catw' });
  const events = catalogEvents(300);
  const want = seriesOfEvents(events);
  assert.ok(want.length > 40 && want.length < 300, `a few series, each several times (${want.length})`);
  const groupId = uniqueName('it-catw');
  const svc = await startInProcess(h, [`kafka.groupId=${groupId}`, 'http.port=0']);
  const rowsWritten = async (): Promise<number> => (await svc.metrics.catalogRowsWritten.get()).values.reduce((s, v) => s + v.value, 0);

  await produceEvents(h, events);
  await waitForEvents(svc, events.length);
  await waitForCommittedAtEnd(h, groupId);
  assert.deepEqual(await eventsProcessed(svc), { written: events.length, dlq: 0 });
  assert.deepEqual(await catalogLines(h), want, 'exactly the series of the events');
  const first = await rowsWritten();
  // Same-id events share a partition, so no two units race on one series: one put per series.
  assert.equal(first, want.length, 'one catalog row written per series');

  await produceEvents(h, events);
  await waitForEvents(svc, 2 * events.length);
  await waitForCommittedAtEnd(h, groupId);
  assert.equal(await rowsWritten(), first, 'the second pass wrote no catalog row');
  assert.deepEqual(await catalogLines(h), want);

  // A restarted process starts with the catalog's series remembered: a third pass writes none either,
  // and the catalog's generation (what every query process rereads on) stays as it was.
  const store = new CatalogStore(h.rest, { table: h.names.meta });
  const generation = await store.generation();
  assert.ok(generation !== undefined);
  await svc.stop('restart');
  const again = await startInProcess(h, [`kafka.groupId=${groupId}`, 'http.port=0']);
  const written0 = (await again.metrics.catalogRowsWritten.get()).values.reduce((s, v) => s + v.value, 0);
  await produceEvents(h, events);
  await waitForEvents(again, events.length);
  await waitForCommittedAtEnd(h, groupId);
  assert.equal(
    (await again.metrics.catalogRowsWritten.get()).values.reduce((s, v) => s + v.value, 0),
    written0,
    'the restarted process wrote no catalog row',
  );
  assert.deepEqual(await store.generation(), generation, 'the generation was not replaced');

  // The read side over what ingest wrote: the id under catalog.idTagKey, filters as OpenTSDB.
  const index = new SeriesIndex({ idTagKey: 'id', source: store });
  assert.equal(await index.refresh(), want.length);
  assert.deepEqual(index.metrics(''), ['cpu', 'disk.io', 'mem', 'temp']);
  const cpuS0 = index.lookup('cpu', [buildFilter('literal_or', 'site', 's0')]);
  const expected = want.filter((l) => l.startsWith('cpu|') && l.includes('"site":"s0"')).length;
  assert.ok(expected > 0);
  assert.equal(cpuS0.total, expected);
  for (const s of cpuS0.series) assert.equal(s.tags['id'], s.id);
});
