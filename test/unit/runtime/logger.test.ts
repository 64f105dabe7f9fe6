import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HBaseError } from '../../../src/hbase/errors.ts';
import { withContext } from '../../../src/hbase/rest-caller.ts';
import { createLogger, formatPretty } from '../../../src/runtime/logger.ts';

function capture(): { lines: string[]; destination: { write(line: string): void } } {
  const lines: string[] = [];
  return { lines, destination: { write: (line) => lines.push(line) } };
}

void describe('createLogger', () => {
  void it('writes JSON lines with name tsingest, a level label and ISO time', () => {
    const { lines, destination } = capture();
    const log = createLogger({ level: 'info', destination });
    log.info({ table: 't' }, 'hello');
    log.debug('hidden');
    assert.equal(lines.length, 1);
    const record = JSON.parse(lines[0] ?? '') as Record<string, unknown>;
    assert.equal(record['name'], 'tsingest');
    assert.equal(record['level'], 'info');
    assert.equal(record['msg'], 'hello');
    assert.equal(record['table'], 't');
    assert.match(String(record['time']), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  void it("an error wrapped with its op and table has the gateway's text once; a cause that adds to it is kept", () => {
    const { lines, destination } = capture();
    const log = createLogger({ level: 'info', destination });
    const refused = new HBaseError({
      code: 'HBASE_UNAUTHORIZED',
      status: 401,
      message: 'HTTP 401 HBASE_UNAUTHORIZED: the gateway refused the credentials (hbase.auth)',
    });
    log.error({ err: withContext(refused, 'get', 'tsi:meta') }, 'read failed');
    const message = (JSON.parse(lines[0] ?? '') as { err: { message: string } }).err.message;
    assert.equal(message, "HBase get on table 'tsi:meta' failed: HTTP 401 HBASE_UNAUTHORIZED: the gateway refused the credentials (hbase.auth)");
    assert.equal(message.split('the gateway refused').length, 2, 'once');
    log.error({ err: new Error('outer', { cause: new Error('inner detail') }) }, 'x');
    assert.equal((JSON.parse(lines[1] ?? '') as { err: { message: string } }).err.message, 'outer: inner detail');
  });

  void it('child loggers keep the base fields; silent writes nothing', () => {
    const { lines, destination } = capture();
    createLogger({ level: 'debug', destination }).child({ module: 'writer' }).debug('x');
    const record = JSON.parse(lines[0] ?? '') as Record<string, unknown>;
    assert.equal(record['module'], 'writer');
    assert.equal(record['name'], 'tsingest');
    const quiet = capture();
    createLogger({ level: 'silent', destination: quiet.destination }).error('nope');
    assert.deepEqual(quiet.lines, []);
  });

  void it('pretty mode writes one readable line per record', () => {
    const { lines, destination } = capture();
    createLogger({ level: 'info', pretty: true, destination }).warn({ table: 't', n: 3 }, 'slow write');
    assert.equal(lines.length, 1);
    assert.match(lines[0] ?? '', /^\S+Z WARN {2}slow write table=t n=3\n$/);
  });

  void it('formatPretty passes non-JSON lines through', () => {
    assert.equal(formatPretty('not json'), 'not json\n');
    assert.equal(formatPretty('{"msg":"m","level":"info","time":"T","o":{"a":1}}\n'), 'T INFO  m o={"a":1}\n');
  });
});

void describe('redaction', () => {
  void it('blanks credential paths in any record, a second line of defence', () => {
    const lines: string[] = [];
    const log = createLogger({
      level: 'info',
      destination: {
        write: (l: string) => {
          lines.push(l);
        },
      },
    });
    const secret = 's3cr3t-value-9f';
    log.info({ password: secret, token: secret, headers: { authorization: `Bearer ${secret}` } }, 'top level');
    log.info({ auth: { password: secret, token: secret }, req: { headers: { authorization: `Basic ${secret}`, cookie: secret } } }, 'nested');
    log.info(
      {
        cfg: {
          hbase: { auth: { password: secret, token: secret } },
          kafka: { sasl: { password: secret } },
          http: { auth: { credentials: { tokens: [secret] } } },
        },
      },
      'a config',
    );
    log.info({ err: { config: { password: secret } } }, 'an error');
    assert.equal(lines.length, 4);
    for (const l of lines) {
      assert.ok(!l.includes(secret), l);
      assert.match(l, /\[redacted\]/);
    }
  });
});
