// One family per window size in the rollup table: the names, the columns a read asks for, and which
// cell wins when a summary row holds a metric in both its size's family and the main (pre-upgrade) one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ttlText, whatChanged } from '../../../src/cli/tables.ts';
import { isRollupWindowFamily, rollupWindowFamily } from '../../../src/keys/index.ts';
import { newestPerQualifier, summaryColumns } from '../../../src/rollup/fold.ts';

test("a size's family is named by its length in the largest whole unit, whatever the spelling", () => {
  assert.deepEqual([900, 3600, 5400, 86_400, 604_800, 90].map(rollupWindowFamily), ['r15m', 'r1h', 'r90m', 'r1d', 'r7d', 'r90s']);
  assert.ok(isRollupWindowFamily('r1h') && isRollupWindowFamily('r15m'));
  assert.ok(!isRollupWindowFamily('d') && !isRollupWindowFamily('r') && !isRollupWindowFamily('rx') && !isRollupWindowFamily('r0h'));
});

test('a read of one size asks for its family and the main one, whole or per metric', () => {
  assert.deepEqual(summaryColumns('d', 3600).map(String), ['r1h', 'd']);
  assert.deepEqual(summaryColumns('d', 86_400, [Buffer.from('temp'), Buffer.from('hum')]).map(String), ['r1d:temp', 'r1d:hum', 'd:temp', 'd:hum']);
});

test('per metric the newest cell wins across the two families; order of first appearance is kept', () => {
  const cell = (family: string, q: string, timestamp: number) => ({
    family,
    qualifier: Buffer.from(q),
    timestamp,
    value: Buffer.from(`${family}${timestamp}`),
  });
  const old = [cell('d', 'hum', 100), cell('d', 'temp', 100)];
  const fresh = [cell('r1h', 'temp', 200)];
  assert.deepEqual(
    newestPerQualifier([...old, ...fresh]).map((c) => `${c.family}:${c.qualifier.toString()}`),
    ['d:hum', 'r1h:temp'],
  );
  assert.deepEqual(
    newestPerQualifier([...fresh, ...old]).map((c) => `${c.family}:${c.qualifier.toString()}`),
    ['r1h:temp', 'd:hum'],
    'family order does not matter',
  );
  assert.deepEqual(
    newestPerQualifier([cell('d', 'temp', 300), ...fresh]).map((c) => c.family),
    ['d'],
    "an older version's writer still running: its newer cell wins",
  );
  assert.deepEqual(newestPerQualifier(old), old);
});

test('tables apply says what it changed on a family: its TTL from → to, or that it is new', () => {
  assert.equal(whatChanged({ created: false, diff: [{ scope: 'family', key: 'TTL', from: 'FOREVER', to: '31536000' }] }), 'updated (TTL: FOREVER→31536000)');
  assert.equal(
    whatChanged({
      created: false,
      diff: [
        { scope: 'family', key: 'NAME', from: null, to: 'r1h' },
        { scope: 'family', key: 'TTL', from: null, to: '3600' },
      ],
    }),
    'added',
  );
  assert.equal(whatChanged({ created: false, diff: [] }), 'unchanged');
  assert.equal(ttlText('31536000'), '31536000 s = 365 d');
  assert.equal(ttlText('FOREVER'), 'forever');
  assert.equal(ttlText('5000'), '5000 s');
});
