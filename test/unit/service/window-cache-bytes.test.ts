// The window cache's bound when the configuration leaves it to the heap (src/service/series-side.ts):
// a quarter of the V8 heap limit, between 64 and 512 MiB, whole MiB.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { windowCacheBytes } from '../../../src/service/series-side.ts';

const MIB = 1024 * 1024;

void test('a quarter of the heap limit, at least 64 MiB, at most 512 MiB', () => {
  assert.equal(windowCacheBytes(208 * MIB), 64 * MIB, "ingest's heap flags (208 MiB limit): the floor");
  assert.equal(windowCacheBytes(1728 * MIB), 432 * MIB, "the query role's (1,728 MiB limit)");
  assert.equal(windowCacheBytes(4288 * MIB), 512 * MIB, "V8's defaults on a large machine: the ceiling");
  assert.equal(windowCacheBytes(1000 * MIB + 123), 250 * MIB, 'whole MiB');
});
