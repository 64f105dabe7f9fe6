// Ids and tag values that URL handling tends to mangle (`.`, `..`, `/`, `%2F`, `?`, `#`, `+`, spaces,
// unicode, 128 bytes), written by the REAL ingest service from Kafka and read back over the service's
// own HTTP port with raw paths (sent byte for byte) and with `tsingest query`: both answer exactly
// that id's (that value's) events.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { uniqueName } from '../../support/env.ts';
import { AWKWARD_IDS, AWKWARD_VALUES, getRaw } from '../../support/awkward-ids.ts';
import { NODE_BIN, REPO_ROOT, createHarness, produceEvents, startInProcess, waitForEvents, type TestEvent } from '../../support/service-harness.ts';
import { BASE, newestFirst, plain } from './fixture.ts';

const run = promisify(execFile);

type Item = Parameters<typeof plain>[0];

void test('awkward ids and tag values read back over raw HTTP paths and the CLI', async (t) => {
  const h = await createHarness(t, { prefix: 'awk', sets: ['rollup.enabled=false'] });
  const events: TestEvent[] = AWKWARD_IDS.flatMap(({ id }, i) =>
    [0, 1].map((k) => ({
      id,
      ts: BASE + i * 1000 + k * 10,
      metric: 'temp',
      value: i + k / 10,
      tags: { site: AWKWARD_VALUES[(i + k) % AWKWARD_VALUES.length]?.id ?? '' },
    })),
  );
  const svc = await startInProcess(h, [`kafka.groupId=${uniqueName('it-awk')}`, 'http.port=0']);
  await produceEvents(h, events);
  await waitForEvents(svc, events.length);
  const expected = (keep: (e: TestEvent) => boolean): Item[] =>
    events
      .filter(keep)
      .sort(newestFirst)
      .map((e) => ({ id: e.id, ts: e.ts, metrics: { [e.metric]: e.value }, tags: { ...e.tags } }));
  const http = async (path: string): Promise<unknown[]> => {
    const res = await getRaw(svc.httpPort, path);
    const body = res.body as { items?: unknown[]; next?: unknown };
    assert.equal(res.status, 200, `${path}: ${JSON.stringify(body)}`);
    assert.equal(body.next, null, path);
    return body.items ?? [];
  };
  const sets = [...h.baseSets, 'kafka.groupId=unused'].flatMap((s) => ['--set', s]);
  const cli = async (args: string[]): Promise<unknown[]> => {
    const { stdout } = await run(NODE_BIN, ['src/cli.ts', 'query', ...args, '--json', ...sets], { cwd: REPO_ROOT, env: process.env });
    const lines = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as unknown);
    assert.equal((lines.pop() as { next?: unknown }).next, null, args.join(' '));
    return lines;
  };

  await t.test('latest by id', async () => {
    for (const { id, segments } of AWKWARD_IDS) {
      const want = expected((e) => e.id === id);
      assert.equal(want.length, 2);
      const viaCli = await cli(['latest', '--id', id]);
      assert.deepEqual((viaCli as Item[]).map(plain), want, `CLI --id ${id}`);
      for (const seg of segments) assert.deepEqual(await http(`/api/v1/ids/${seg}/latest`), viaCli, `HTTP ${seg}`);
    }
  });

  await t.test('by-tag value', async () => {
    for (const { id: value, segments } of AWKWARD_VALUES) {
      const want = expected((e) => e.tags?.['site'] === value);
      assert.ok(want.length >= AWKWARD_IDS.length / AWKWARD_VALUES.length);
      const viaCli = await cli(['by-tag', '--tag', 'site', '--value', value]);
      assert.deepEqual((viaCli as Item[]).map(plain), want, `CLI --value ${value}`);
      for (const seg of segments) assert.deepEqual(await http(`/api/v1/index/site/${seg}/events`), viaCli, `HTTP ${seg}`);
    }
  });
});
