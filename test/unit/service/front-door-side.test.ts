// The front door built from the configuration: the start-up refusal of an anonymous non-loopback
// port (exit 3), the warning of http.auth.mode none at every start, and credentials read from a file
// again when it changes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { hashToken } from '../../../src/front-door/credentials.ts';
import { loadConfig } from '../../../src/runtime/config.ts';
import { createLogger } from '../../../src/runtime/logger.ts';
import { Registry } from 'prom-client';
import { frontDoor } from '../../../src/service/front-door-side.ts';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');

function capture(): { log: ReturnType<typeof createLogger>; lines: string[] } {
  const lines: string[] = [];
  return {
    log: createLogger({
      level: 'info',
      destination: {
        write: (l: string) => {
          lines.push(l);
        },
      },
    }),
    lines,
  };
}

test('tsingest run on a non-loopback http.host without credentials refuses to start with exit 3, naming the way out', () => {
  const res = spawnSync(process.execPath, ['src/cli.ts', 'run'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, TSI_CONFIG: '', TSI_HTTP_HOST: '0.0.0.0' },
    timeout: 30_000,
  });
  assert.equal(res.status, 3, res.stderr);
  assert.match(res.stderr, /http\.auth\.mode: http\.host is not loopback and no authentication is configured: set http\.auth\.credentialsFile/);
});

test('http.auth.mode none: a warning at every start; loopback without credentials: anonymous, said once', () => {
  const none = capture();
  frontDoor(loadConfig({ env: { TSI_HTTP_HOST: '0.0.0.0', TSI_HTTP_AUTH_MODE: 'none' } }), none.log, new Registry());
  assert.ok(
    none.lines.some((l) => l.includes('"level":"warn"') && l.includes('http.auth.mode is none')),
    none.lines.join(''),
  );
  const loop = capture();
  frontDoor(loadConfig({ env: {} }), loop.log, new Registry());
  assert.ok(loop.lines.some((l) => l.includes('the loopback port is anonymous')));
  assert.ok(!loop.lines.some((l) => l.includes('"level":"warn"')));
});

test('credentials from a file: read again when the file changes; a broken new file keeps the last good one; errors never show a secret', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tsi-fd-'));
  try {
    const file = join(dir, 'creds.json');
    const doc = (token: string): string => JSON.stringify({ tokens: [{ name: 'p', sha256: hashToken(token), scopes: ['metrics'] }] });
    writeFileSync(file, doc('first-token'));
    const { log, lines } = capture();
    const cfg = loadConfig({ env: { TSI_HTTP_CREDENTIALS_FILE: file } });
    const door = frontDoor(cfg, log, new Registry());
    assert.equal(door.tls, undefined);
    const ask = async (token: string): Promise<number> => {
      let status = 0;
      const res = {
        statusCode: 200,
        once: () => res,
        writeHead: (s: number) => {
          status = s;
          return res;
        },
        end: () => res,
      } as never;
      const ctx = await door.guard(
        { url: '/metrics', method: 'GET', headers: { authorization: `Bearer ${token}` }, socket: {} } as never,
        res,
        new URL('http://x/metrics'),
      );
      return ctx === undefined ? status : 200;
    };
    assert.equal(await ask('first-token'), 200);
    assert.equal(await ask('second-token'), 401);
    writeFileSync(file, doc('second-token'));
    await new Promise((r) => setTimeout(r, 2100)); // the file is checked at most every 2 s
    assert.equal(await ask('second-token'), 200);
    assert.equal(await ask('first-token'), 401);
    writeFileSync(file, '{"tokens":[{"name":"p","token":"plain-secret-x","scopes":["read"]}]}');
    await new Promise((r) => setTimeout(r, 2100));
    assert.equal(await ask('second-token'), 200, 'the last good credentials stay');
    assert.ok(lines.some((l) => l.includes('the changed credentials file is not valid')));
    assert.ok(!lines.join('').includes('plain-secret-x'));
    assert.throws(
      () => frontDoor(loadConfig({ env: { TSI_HTTP_CREDENTIALS_FILE: join(dir, 'missing.json') } }), log, new Registry()),
      /http\.auth\.credentialsFile: cannot read/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
