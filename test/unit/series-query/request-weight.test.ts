import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { currentRequestWeight, weighed } from '../../../src/series-query/request-weight.ts';

void test('a weighed request’s calls see the weight it set, across awaits; two requests apart; none outside', async () => {
  assert.equal(currentRequestWeight(), undefined);
  const seen = await Promise.all(
    [3, 6288].map((n) =>
      weighed(async (w) => {
        const before = currentRequestWeight();
        await sleep(5);
        w.weight = n;
        await sleep(5);
        return [before, currentRequestWeight()];
      }),
    ),
  );
  assert.deepEqual(seen, [
    [0, 3],
    [0, 6288],
  ]);
  assert.equal(currentRequestWeight(), undefined);
});
