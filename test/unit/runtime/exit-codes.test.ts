// The exit codes of `tsingest run`: each kind of stop has its own, so a supervisor can tell a clean
// stop (0) from a failure, and a failure a restart may heal (4) from one it cannot (3).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ServiceError } from '../../../src/errors.ts';
import { HBaseError } from '../../../src/hbase/errors.ts';
import { TableAdminError } from '../../../src/admin/table-admin-port.ts';
import { UsageError } from '../../../src/cli/args.ts';
import { EventError } from '../../../src/events/event-error.ts';
import { KeyError } from '../../../src/keys/key-error.ts';
import { RollupStageError } from '../../../src/rollup/recompute.ts';
import { WindowConfigError } from '../../../src/rollup/windows.ts';
import { RetryAbortedError } from '../../../src/toolkit/retry.ts';
import { ConfigError } from '../../../src/runtime/config.ts';
import { EXIT, exitCodeOf } from '../../../src/runtime/exit-codes.ts';
import { StartupError } from '../../../src/service/service-settings.ts';
import { RegistryConflictError } from '../../../src/spread/store.ts';

void test('every kind of stop has its code, and only a clean one is 0', () => {
  const kafkaCrash = Object.assign(new Error('The group is rebalancing'), { name: 'KafkaJSNumberOfRetriesExceeded' });
  const cases: [string, unknown, number][] = [
    ['a wrong command line', new UsageError('unknown flag --x'), EXIT.USAGE],
    ['a configuration that does not validate', new ConfigError('hbase.restUrl: required'), EXIT.CONFIG],
    ['a refusal to start (tables or topics that do not match)', new StartupError('refusing to start: table t has B=8, config 16'), EXIT.CONFIG],
    ['kafkajs gave up on the consumer', new ServiceError({ code: 'CONSUMER_CRASHED', message: 'crashed', cause: kafkaCrash }), EXIT.DEPENDENCY],
    ['a kafkajs error that reached the top', kafkaCrash, EXIT.DEPENDENCY],
    ['HBase says the table is gone', new HBaseError({ code: 'HBASE_TABLE_NOT_FOUND', status: 404, message: 'no such table' }), EXIT.DEPENDENCY],
    ['HBase refused the credentials at start-up', new HBaseError({ code: 'HBASE_UNAUTHORIZED', status: 401, message: 'refused' }), EXIT.DEPENDENCY],
    ['a request our client refused to send', new HBaseError({ code: 'HBASE_INVALID_ARGUMENT', message: 'bad key' }), EXIT.INTERNAL],
    [
      'the admin tool answered garbage: its own failure, not a dependency (no longer read as HBase PROTOCOL)',
      new TableAdminError('ADMIN_PROTOCOL', 'not JSON'),
      EXIT.INTERNAL,
    ],
    ['the gateway answered garbage', new HBaseError({ code: 'HBASE_PROTOCOL', message: 'unexpected status' }), EXIT.DEPENDENCY],
    ['a drain that left work uncommitted', new ServiceError({ code: 'DRAIN_FAILED', message: 'left 1 unit' }), EXIT.DRAIN_FAILED],
    ['an abort', new ServiceError({ code: 'ABORTED', message: 'draining', fatal: false }), EXIT.OK],
    ['a rollup window that is not a duration', new WindowConfigError('rollup window "7x" is not a duration like 15m, 1h or 1d'), EXIT.CONFIG],
    ['a retry loop stopped by shutdown', new RetryAbortedError('retry aborted'), EXIT.OK],
    ['a key out of domain (coded, but no dependency)', new KeyError('INVALID_ID', 'id is empty'), EXIT.INTERNAL],
    ['a malformed stored cell', new EventError('MALFORMED_CELL', 'd:t', 'cell d:t is not 8 bytes'), EXIT.INTERNAL],
    [
      'a failed rollup stage, whatever failed under it',
      new RollupStageError('write', new HBaseError({ code: 'HBASE_TABLE_NOT_FOUND', message: 'gone' })),
      EXIT.INTERNAL,
    ],
    [
      'an HBase answer under an uncoded wrapper',
      new Error('start-up check failed', { cause: new HBaseError({ code: 'HBASE_TABLE_NOT_FOUND', message: 'gone' }) }),
      EXIT.DEPENDENCY,
    ],
    ['a bug', new TypeError('x is undefined'), EXIT.INTERNAL],
    ['something thrown that is not an Error', 'boom', EXIT.INTERNAL],
  ];
  for (const [what, err, code] of cases) assert.equal(exitCodeOf(err), code, what);
  const codes = new Set(Object.values(EXIT));
  assert.equal(codes.size, Object.keys(EXIT).length, 'the codes are distinct');
});

void test('a retriable error is never fatal, so it never picks an exit code on the ingest path (the registry race of issue 29)', () => {
  const e = new RegistryConflictError('kept changing');
  assert.equal(e.fatal, false);
  assert.equal(e.retriable, true);
});
