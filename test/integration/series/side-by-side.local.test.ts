// `npm run compat:opentsdb`'s side-by-side check in the test suite, on the small data set: OpenTSDB
// 2.4.1's own TSD on the local stack's HBase (through its ZooKeeper, which the container stack does
// not publish: hence `.local`), fed the data set, and the real service fed the same events through
// Kafka; every query of the suite goes to both, and every difference must be documented in
// docs/SERIES-API-DIVERGENCES.json. The recorded answers (series-api.test.ts) pin 2.4.1's behaviour;
// this run checks it against a live TSD.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SMALL_DATASET } from '../../../scripts/lib/compat/dataset.ts';
import { parseDivergences } from '../../../scripts/lib/compat/divergences.ts';
import { compareWithOurs } from '../../../scripts/lib/compat/side-by-side.ts';
import { suite } from '../../../scripts/lib/compat/suite.ts';
import { openTsd } from '../../../scripts/lib/compat/tsd-session.ts';
import { testEnv, uniqueName } from '../../support/env.ts';
import { serviceWithDataset } from './helpers.ts';

void test('side by side with a live OpenTSDB 2.4.1 on the same HBase: every suite answer the same, or a documented divergence', async (t) => {
  const env = testEnv();
  const zkQuorum = process.env['TSI_HBASE_ZK'];
  assert.ok(zkQuorum !== undefined && zkQuorum !== '', "TSI_HBASE_ZK: the local stack's ZooKeeper (npm test sets it)");
  const { svc } = await serviceWithDataset(t, 'sbs', SMALL_DATASET);
  const lines: string[] = [];
  const say = (m: string): void => {
    lines.push(m);
  };
  const tsd = await openTsd({
    ep: { restUrl: env.restUrl, kafkaBrokers: env.kafkaBrokers, zkQuorum, adminCommand: env.adminCommand },
    dataset: SMALL_DATASET,
    run: uniqueName('itsbs'),
    say,
  });
  t.after(() => tsd.close());
  const divergences = parseDivergences(JSON.parse(readFileSync(join(import.meta.dirname, '../../../docs/SERIES-API-DIVERGENCES.json'), 'utf8')));
  assert.ok(suite(SMALL_DATASET).length >= 30, 'the suite has at least 30 queries');
  const result = await compareWithOurs({
    tsdUrl: tsd.url,
    oursUrl: `http://127.0.0.1:${svc.httpPort}`,
    queries: suite(SMALL_DATASET),
    divergences,
    reps: 1,
    say,
  });
  t.diagnostic(lines.filter((l) => !l.endsWith(': same')).join('\n'));
  assert.equal(result.failures, 0, lines.join('\n'));
  assert.ok(result.ok);
  assert.equal(lines.filter((l) => /^[\w-]+: (same|\d+ difference)/.test(l)).length, suite(SMALL_DATASET).length, 'every query compared');
});
