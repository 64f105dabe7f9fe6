// Retention per window size: tables.rollup.ttlByWindow, its validation, its env form, and what
// `tables apply` plans from it (one family per size in the rollup table, each with its TTL).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planTables, tableMismatch } from '../../../src/admin/table-plan.ts';
import { ConfigError, loadConfig, windowRetention } from '../../../src/runtime/config.ts';

const YEAR = 31_536_000;

test('each window size gets its TTL from ttlByWindow, the others the default ttlSeconds', () => {
  const cfg = loadConfig({
    sets: ['rollup.windows=["15m","1h","1d"]', 'tables.rollup.ttlSeconds=604800', `tables.rollup.ttlByWindow={"1h": ${YEAR}, "1d": null}`],
  });
  assert.deepEqual(windowRetention(cfg), [
    { window: '15m', seconds: 900, family: 'r15m', ttlSeconds: 604_800 },
    { window: '1h', seconds: 3600, family: 'r1h', ttlSeconds: YEAR },
    { window: '1d', seconds: 86_400, family: 'r1d', ttlSeconds: null },
  ]);
  assert.deepEqual(
    windowRetention(loadConfig()).map((w) => [w.family, w.ttlSeconds]),
    [
      ['r1h', null],
      ['r1d', null],
    ],
    'defaults: every size forever',
  );
});

test('the environment form: TSI_ROLLUP_TTL_BY_WINDOW takes the JSON object, one window also with --set', () => {
  const cfg = loadConfig({
    env: { TSI_ROLLUP_TTL_BY_WINDOW: `{"1h": ${YEAR}}`, TSI_ROLLUP_TTL_SECONDS: '86400' },
    sets: ['tables.rollup.ttlByWindow.1d=null'],
  });
  assert.deepEqual(cfg.tables.rollup.ttlByWindow, { '1h': YEAR, '1d': null });
  assert.equal(cfg.tables.rollup.ttlSeconds, 86_400);
});

test('a window in ttlByWindow that rollup.windows does not list is an error naming the field', () => {
  assert.throws(
    () => loadConfig({ sets: [`tables.rollup.ttlByWindow={"2h": ${YEAR}}`] }),
    (e: unknown) => e instanceof ConfigError && /tables\.rollup\.ttlByWindow\.2h: window 2h is not in rollup\.windows \(1h, 1d\)/.test(e.message),
  );
  assert.throws(
    () => loadConfig({ sets: ['tables.rollup.ttlByWindow={"hourly": 3600}'] }),
    /tables\.rollup\.ttlByWindow\.hourly: "hourly" is not a window size/,
  );
  assert.throws(
    () => loadConfig({ sets: ['tables.rollup.ttlByWindow={"1h": 3600, "60m": 7200}'] }),
    /tables\.rollup\.ttlByWindow\.60m: the same window size as tables\.rollup\.ttlByWindow\.1h/,
  );
  assert.throws(() => loadConfig({ sets: ['tables.rollup.ttlByWindow={"1h": 0}'] }), /tables\.rollup\.ttlByWindow\.1h/);
  assert.throws(() => loadConfig({ sets: ['tables.rollup.family=r1h'] }), /tables\.rollup\.family: "r1h" has the form of a window size's summary family/);
  assert.throws(() => loadConfig({ sets: ['tables.data.ttlByWindow={}'] }), /tables\.data/, 'only the rollup table has sizes');
  // spelled differently from rollup.windows but the same size: accepted, the size's family
  assert.deepEqual(
    windowRetention(loadConfig({ sets: ['tables.rollup.ttlByWindow={"60m": 3600}'] })).map((w) => [w.window, w.family, w.ttlSeconds]),
    [
      ['1h', 'r1h', 3600],
      ['1d', 'r1d', null],
    ],
  );
});

test("tables apply plans the rollup table's main family plus one family per size with its own TTL and the point blocks' with the data TTL; the start guard wants them all", () => {
  const cfg = loadConfig({ sets: ['tables.rollup.ttlSeconds=86400', `tables.rollup.ttlByWindow={"1h": ${YEAR}}`, 'tables.data.ttlSeconds=604800'] });
  const rollup = planTables(cfg).find((p) => p.role === 'rollup');
  assert.ok(rollup !== undefined);
  assert.equal(rollup.request.family, 'd');
  assert.equal(rollup.request.familyAttrs?.TTL, 86_400, 'markers and pre-upgrade summaries: the default');
  assert.deepEqual(
    rollup.extraFamilies.map((f) => [f.family, f.holds, f.familyAttrs.TTL, f.familyAttrs.NEW_VERSION_BEHAVIOR]),
    [
      ['r1h', '1h summaries', YEAR, true],
      ['r1d', '1d summaries', 86_400, true],
      ['p', 'point blocks', 604_800, true],
    ],
  );
  for (const p of planTables(cfg)) if (p.role !== 'rollup') assert.deepEqual(p.extraFamilies, [], p.role);
  const facts = (families: string[]) => ({ exists: true, families, attributes: rollup.request.tableAttrs ?? {} });
  assert.equal(tableMismatch(rollup, facts(['d', 'r1h', 'r1d', 'p'])), undefined);
  assert.match(
    tableMismatch(rollup, facts(['d'])) ?? '',
    /table tsrollup has no column family 'r1h' \(1h summaries\), 'r1d' \(1d summaries\), 'p' \(point blocks\).*tsingest tables apply/,
  );
  const off = planTables(loadConfig({ sets: ['rollup.pointBlocks.enabled=false'] })).find((p) => p.role === 'rollup');
  assert.deepEqual(
    off?.extraFamilies.map((f) => f.family),
    ['r1h', 'r1d'],
    'blocks off: no points family wanted',
  );
});

test('the points family is neither the marker family nor a window family', () => {
  assert.throws(() => loadConfig({ sets: ['tables.rollup.pointsFamily=d'] }), /tables\.rollup\.pointsFamily: "d" is the marker family/);
  assert.throws(() => loadConfig({ sets: ['tables.rollup.pointsFamily=r1h'] }), /tables\.rollup\.pointsFamily: "r1h"/);
});

test("every TTL is held to HBase's largest (a 32-bit count of seconds, 2147483647 being FOREVER); the error names the key", () => {
  const refused = (set: string, key: string): void => {
    assert.throws(
      () => loadConfig({ sets: [set] }),
      (e: unknown) => e instanceof ConfigError && new RegExp(`${key.replaceAll('.', '\\.')}: at most 2147483646 s .*null is forever`).test(e.message),
      set,
    );
  };
  for (const role of ['data', 'index', 'rollup', 'meta']) refused(`tables.${role}.ttlSeconds=3153600000`, `tables.${role}.ttlSeconds`);
  refused('tables.rollup.ttlByWindow={"1d": 3153600000}', 'tables.rollup.ttlByWindow.1d');
  refused('tables.data.ttlSeconds=2147483647', 'tables.data.ttlSeconds');
  const longest = loadConfig({ sets: ['tables.data.ttlSeconds=2147483646', 'tables.rollup.ttlByWindow={"1d": 2147483646}'] });
  assert.equal(longest.tables.data.ttlSeconds, 2_147_483_646);
  assert.equal(windowRetention(longest).find((w) => w.window === '1d')?.ttlSeconds, 2_147_483_646);
});
