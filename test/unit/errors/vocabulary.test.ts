// The one error vocabulary (src/errors.ts): every error class of src/ is a ServiceError with a code
// from the closed list, a `retriable` default, `fatal` and a `cause`, and classifyError reads those
// (walking the cause chain) rather than asking which class an error is. The table below names every
// error class; the scan of src/ fails when a class is added without a row here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { ERROR_CODES, InputError, ServiceError, classifyError, isErrorCode, rephrase, type ErrorCode } from '../../../src/errors.ts';
import { TableAdminError } from '../../../src/admin/table-admin-port.ts';
import { UsageError } from '../../../src/cli/args.ts';
import { EventError } from '../../../src/events/event-error.ts';
import { HBaseError } from '../../../src/hbase/errors.ts';
import { KeyError } from '../../../src/keys/key-error.ts';
import { DeadlinePassed } from '../../../src/reads-v1/http-api.ts';
import { QueryError } from '../../../src/reads-v1/query-error.ts';
import { RollupStageError } from '../../../src/rollup/recompute.ts';
import { SummaryDecodeError } from '../../../src/rollup/summary.ts';
import { WindowConfigError } from '../../../src/rollup/windows.ts';
import { ConfigError } from '../../../src/runtime/config.ts';
import { LifecycleError } from '../../../src/runtime/lifecycle.ts';
import { StartupError } from '../../../src/service/service-settings.ts';
import { RegistryConflictError } from '../../../src/spread/store.ts';
import { HttpError, TsdbQueryError } from '../../../src/series-language/errors.ts';
import { FilterSpecError } from '../../../src/series-language/filters.ts';
import { CheckpointError } from '../../../src/toolkit/checkpoint-store.ts';
import { RetryAbortedError } from '../../../src/toolkit/retry.ts';

const ROOT = resolve(import.meta.dirname, '../../..');

interface Row {
  /** the class, for `instanceof` and its name */
  readonly cls: abstract new (...args: never[]) => Error;
  /** one instance, with `cause` as its cause */
  readonly make: (cause: Error) => ServiceError;
  readonly code: ErrorCode;
  readonly retriable: boolean;
  readonly fatal: boolean;
}

/** Every error class of src/, one representative each, and how it must classify. */
const TABLE: readonly Row[] = [
  {
    cls: ServiceError,
    make: (cause) => new ServiceError({ code: 'CONSUMER_CRASHED', message: 'crashed', cause }),
    code: 'CONSUMER_CRASHED',
    retriable: false,
    fatal: true,
  },
  {
    cls: InputError,
    make: (cause) => new InputError('--from (9) must be before --to (9)', { field: '--from', cause }),
    code: 'BAD_INPUT',
    retriable: false,
    fatal: true,
  },
  {
    cls: HBaseError,
    make: (cause) => new HBaseError({ code: 'HBASE_UNAVAILABLE', status: 503, message: 'HTTP 503', cause }),
    code: 'HBASE_UNAVAILABLE',
    retriable: true,
    fatal: false,
  },
  { cls: StartupError, make: (cause) => new StartupError('refusing to start', cause), code: 'STARTUP', retriable: false, fatal: true },
  {
    cls: RegistryConflictError,
    make: (cause) => new RegistryConflictError('kept changing', { cause }),
    code: 'REGISTRY_CONFLICT',
    retriable: true,
    fatal: false,
  },
  {
    cls: TsdbQueryError,
    make: (cause) => new TsdbQueryError({ field: 'start', message: 'bad start', cause }),
    code: 'BAD_QUERY',
    retriable: false,
    fatal: true,
  },
  { cls: HttpError, make: (cause) => new HttpError(413, 'too large', { cause }), code: 'HTTP_REQUEST', retriable: false, fatal: true },
  {
    cls: FilterSpecError,
    make: (cause) => new FilterSpecError('Filter must contain an asterisk', { cause }),
    code: 'BAD_FILTER',
    retriable: false,
    fatal: true,
  },
  { cls: DeadlinePassed, make: () => new DeadlinePassed(), code: 'DEADLINE_PASSED', retriable: true, fatal: false },
  {
    cls: QueryError,
    make: (cause) => new QueryError('BAD_PARAMETER', 'limit', 'limit: must be a positive integer', { cause }),
    code: 'BAD_PARAMETER',
    retriable: false,
    fatal: true,
  },
  {
    cls: KeyError,
    make: (cause) => new KeyError('INVALID_BUCKETS', 'buckets must be an integer in [1, 256], got 0', { cause }),
    code: 'INVALID_BUCKETS',
    retriable: false,
    fatal: true,
  },
  {
    cls: EventError,
    make: (cause) => new EventError('MALFORMED_CELL', 'd:temp', 'cell d:temp is not 8 bytes', { cause }),
    code: 'MALFORMED_CELL',
    retriable: false,
    fatal: true,
  },
  {
    cls: CheckpointError,
    make: (cause) => new CheckpointError('CHECKPOINT_NOT_JSON', 'checkpoint c.json is not JSON', { cause }),
    code: 'CHECKPOINT_NOT_JSON',
    retriable: false,
    fatal: true,
  },
  {
    cls: LifecycleError,
    make: (cause) => new LifecycleError('ILLEGAL_TRANSITION', 'stopped -> running', { cause }),
    code: 'ILLEGAL_TRANSITION',
    retriable: false,
    fatal: true,
  },
  {
    cls: TableAdminError,
    make: (cause) => new TableAdminError('ADMIN_UNAVAILABLE', 'ZooKeeper not reachable', { cause }),
    code: 'ADMIN_UNAVAILABLE',
    retriable: true,
    fatal: false,
  },
  { cls: ConfigError, make: (cause) => new ConfigError('hbase.restUrl: required', { cause }), code: 'CONFIG', retriable: false, fatal: true },
  {
    cls: WindowConfigError,
    make: (cause) => new WindowConfigError('rollup.windows needs at least one window', { cause }),
    code: 'CONFIG',
    retriable: false,
    fatal: true,
  },
  { cls: UsageError, make: (cause) => new UsageError('unknown flag --x', { cause }), code: 'USAGE', retriable: false, fatal: true },
  { cls: RollupStageError, make: (cause) => new RollupStageError('compute', cause), code: 'ROLLUP_FAILED', retriable: false, fatal: true },
  {
    cls: SummaryDecodeError,
    make: (cause) => new SummaryDecodeError('summary cell m is 3 bytes, expected 64', { cause }),
    code: 'MALFORMED_SUMMARY',
    retriable: false,
    fatal: true,
  },
  { cls: RetryAbortedError, make: (cause) => new RetryAbortedError('retry aborted', { cause }), code: 'ABORTED', retriable: false, fatal: false },
];

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return tsFiles(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

/** `class X extends Y` of src/ whose Y is an error class (its name ends in Error, or ServiceError's subclasses). */
function errorClassesOfSrc(): { name: string; base: string; file: string }[] {
  const found: { name: string; base: string; file: string }[] = [];
  for (const file of tsFiles(join(ROOT, 'src'))) {
    for (const m of readFileSync(file, 'utf8').matchAll(/\bclass\s+(\w+)(?:<[^>{]*>)?\s+extends\s+(\w+)/g)) {
      found.push({ name: m[1] as string, base: m[2] as string, file: relative(ROOT, file) });
    }
  }
  const names = new Set(['Error', 'RangeError', 'TypeError', 'ServiceError']);
  // a class is an error class when its base is one, transitively
  for (let grew = true; grew;) {
    grew = false;
    for (const c of found) {
      if (names.has(c.base) && !names.has(c.name)) {
        names.add(c.name);
        grew = true;
      }
    }
  }
  return found.filter((c) => names.has(c.base));
}

void test('every error class of src/ is a ServiceError and has a row in the table', () => {
  const listed = new Set(TABLE.map((r) => r.cls.name));
  const classes = errorClassesOfSrc();
  assert.ok(classes.length >= TABLE.length - 1, 'the scan finds the error classes');
  for (const c of classes) {
    const root = c.name === 'ServiceError' && c.file === 'src/errors.ts';
    assert.ok(
      root || !['Error', 'RangeError', 'TypeError'].includes(c.base),
      `${c.name} (${c.file}) extends ${c.base}: make it a ServiceError (src/errors.ts)`,
    );
    assert.ok(listed.has(c.name), `${c.name} (${c.file}) is missing from this test's table`);
  }
});

void test('each error class carries its code, flags and cause, and classifies as declared', () => {
  for (const row of TABLE) {
    const cause = new Error('underneath');
    const err = row.make(cause);
    const what = row.cls.name;
    assert.ok(err instanceof row.cls, what);
    assert.ok(err instanceof ServiceError, `${what} is a ServiceError`);
    assert.equal(err.name, what, `${what}: its name (messages print as \`${what}: …\`)`);
    assert.ok(isErrorCode(err.code), `${what}: ${err.code} is in the closed list`);
    assert.equal(err.code, row.code, `${what}: code`);
    assert.equal(err.retriable, row.retriable, `${what}: retriable`);
    assert.equal(err.fatal, row.fatal, `${what}: fatal`);
    if (what !== 'DeadlinePassed') assert.equal(err.cause, cause, `${what}: cause`);
    const c = classifyError(err);
    assert.deepEqual(
      { code: c.code, retriable: c.retriable, fatal: c.fatal },
      { code: row.code, retriable: row.retriable, fatal: row.fatal },
      `${what}: classifyError`,
    );
  }
});

void test('the closed list has no duplicates, and every code is one of its strings', () => {
  assert.equal(new Set(ERROR_CODES).size, ERROR_CODES.length);
  assert.equal(isErrorCode('NO_SUCH_CODE'), false);
  assert.equal(isErrorCode(42), false);
});

void test('classifyError walks the cause chain past uncoded wrappers; the first coded error decides', () => {
  const outage = new HBaseError({ code: 'HBASE_UNAVAILABLE', status: 503, message: 'HTTP 503' });
  const wrapped = new Error('writing the batch failed', { cause: new Error('chunk 3', { cause: outage }) });
  assert.deepEqual(classifyError(wrapped), { code: 'HBASE_UNAVAILABLE', source: 'service', retriable: true, fatal: false });
  // a coded wrapper speaks for itself, whatever it wraps
  assert.equal(classifyError(new StartupError('refusing to start', outage)).retriable, false);
  // an abort and a kafkajs error are recognised by name, also under a wrapper
  const abort = Object.assign(new Error('aborted'), { name: 'AbortError' });
  assert.equal(classifyError(new Error('scan stopped', { cause: abort })).code, 'ABORTED');
  const kafka = Object.assign(new Error('rebalancing'), { name: 'KafkaJSProtocolError', retriable: true });
  assert.deepEqual(classifyError(kafka), { code: 'KAFKA', source: 'kafka', retriable: true, fatal: false });
  assert.equal(classifyError(new RetryAbortedError('retry aborted')).source, 'abort');
});

void test('rephrase words a failure anew and keeps what it is: code, retriable, fatal, cause', () => {
  const outage = new HBaseError({ code: 'HBASE_UNAVAILABLE', status: 503, message: 'HTTP 503' });
  const told = rephrase('HBase at https://h:8080: the CA does not match', outage);
  assert.equal(told.message, 'HBase at https://h:8080: the CA does not match');
  assert.equal(told.cause, outage);
  assert.deepEqual(classifyError(told), classifyError(outage));
  assert.equal(rephrase('Kafka at k:9092: refused', new TypeError('bug')).code, 'INTERNAL');
});

void test('anything uncoded is INTERNAL and fatal, a cycle of causes included', () => {
  const loop = new Error('a');
  (loop as { cause?: unknown }).cause = loop;
  for (const err of [new TypeError('x is undefined'), new RangeError('out of range'), 'boom', undefined, loop]) {
    assert.deepEqual(classifyError(err), { code: 'INTERNAL', source: 'unknown', retriable: false, fatal: true });
  }
});
