// tsingest keys encode|decode take B and the key format from the configuration (file, TSI_* env,
// --set) unless --buckets / --printable / --format say otherwise; decode reports a salt that does
// not fit B. The command runs in-process with its output captured; one case runs the real CLI.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../../../src/cli/args.ts';
import { decodeReport, keysCommand, saltMismatchMessage } from '../../../src/cli/keys.ts';
import { encodeDataKey, encodePrintableDataKey, saltOf } from '../../../src/keys/index.ts';

const ID = 'sensor-0042';
const TS = 1732262400000;

type Run = { code: number; stdout: string; stderr: string };

/**
 * Runs `tsingest keys …` in this process with exactly the given TSI_* variables set (the others
 * removed for the call), capturing what it writes. A usage error comes back as code 2, like the CLI.
 */
function keys(args: readonly string[], env: Readonly<Record<string, string>> = {}): Run {
  const saved = Object.entries(process.env).filter(([k]) => k.startsWith('TSI_'));
  for (const [k] of saved) Reflect.deleteProperty(process.env, k);
  Object.assign(process.env, env);
  const stdout: string[] = [];
  const stderr: string[] = [];
  try {
    const code = keysCommand(args, { out: (l) => stdout.push(l), err: (l) => stderr.push(l) });
    return { code, stdout: stdout.join('\n'), stderr: stderr.join('\n') };
  } catch (err) {
    return { code: err instanceof UsageError ? 2 : 1, stdout: stdout.join('\n'), stderr: (err as Error).message };
  } finally {
    for (const k of Object.keys(env)) Reflect.deleteProperty(process.env, k);
    for (const [k, v] of saved) process.env[k] = v;
  }
}

void test('the decode report checks the salt against B without failing', () => {
  const key = encodeDataKey({ id: ID, ts: TS }, 16);
  const fits = decodeReport(key, 16, 'keys.saltBuckets');
  assert.deepEqual(fits, {
    format: 'binary', salt: saltOf(ID, 16), id: ID, ts: TS, iso: new Date(TS).toISOString(),
    buckets: 16, bucketsFrom: 'keys.saltBuckets', expectedSalt: saltOf(ID, 16), saltFits: true,
  });
  const other = decodeReport(key, 32, '--buckets');
  assert.notEqual(saltOf(ID, 32), saltOf(ID, 16), 'the test id changes bucket between B=16 and B=32');
  assert.deepEqual([other.salt, other.expectedSalt, other.saltFits], [saltOf(ID, 16), saltOf(ID, 32), false]);
  assert.match(saltMismatchMessage(other), new RegExp(`salt ${saltOf(ID, 16)} .* does not fit B=32 \\(--buckets\\).* salt ${saltOf(ID, 32)}`));
  const printable = decodeReport(encodePrintableDataKey({ id: ID, ts: TS }, 64), 64, '--buckets');
  assert.deepEqual([printable.format, printable.salt, printable.saltFits], ['printable', saltOf(ID, 64), true]);
});

void test('encode uses keys.saltBuckets from the environment, a config file or --set; --buckets wins', () => {
  const hex = (b: number): string => encodeDataKey({ id: ID, ts: TS }, b).toString('hex');
  assert.equal(keys(['encode', '--id', ID, '--ts', String(TS)]).stdout, hex(16), 'default B = 16');
  assert.equal(keys(['encode', '--id', ID, '--ts', String(TS)], { TSI_SALT_BUCKETS: '32' }).stdout, hex(32));
  const file = join(mkdtempSync(join(tmpdir(), 'keys-cli-')), 'c.json');
  writeFileSync(file, JSON.stringify({ keys: { saltBuckets: 64 } }));
  assert.equal(keys(['encode', '--id', ID, '--ts', String(TS), '--config', file]).stdout, hex(64));
  assert.equal(keys(['encode', '--id', ID, '--ts', String(TS), '--set', 'keys.saltBuckets=8']).stdout, hex(8));
  assert.equal(keys(['encode', '--id', ID, '--ts', String(TS), '--buckets', '16'], { TSI_SALT_BUCKETS: '32' }).stdout, hex(16));
  assert.equal(keys(['encode', '--id', ID, '--ts', '2024-11-22T08:00:00Z', '--buckets', '16']).stdout, hex(16), '--ts takes ISO-8601 too');
});

void test('encode follows keys.format unless --printable or --format is given', () => {
  const printable = encodePrintableDataKey({ id: ID, ts: TS }, 32).toString('hex');
  const binary = encodeDataKey({ id: ID, ts: TS }, 32).toString('hex');
  const env = { TSI_SALT_BUCKETS: '32' };
  assert.equal(keys(['encode', '--id', ID, '--ts', String(TS), '--set', 'keys.format=printable'], env).stdout, printable);
  assert.equal(keys(['encode', '--id', ID, '--ts', String(TS), '--printable'], env).stdout, printable);
  assert.equal(keys(['encode', '--id', ID, '--ts', String(TS), '--format', 'binary', '--set', 'keys.format=printable'], env).stdout, binary);
});

void test('decode reports a salt that does not fit the configured B and exits 1', () => {
  const key = encodeDataKey({ id: ID, ts: TS }, 16).toString('hex');
  const ok = keys(['decode', key]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.deepEqual(JSON.parse(ok.stdout), decodeReport(Buffer.from(key, 'hex'), 16, 'keys.saltBuckets'));

  const off = keys(['decode', key], { TSI_SALT_BUCKETS: '32' });
  assert.equal(off.code, 1);
  const report = JSON.parse(off.stdout) as Record<string, unknown>;
  assert.deepEqual([report['id'], report['ts'], report['salt'], report['buckets'], report['expectedSalt'], report['saltFits']], [ID, TS, saltOf(ID, 16), 32, saltOf(ID, 32), false]);
  assert.match(off.stderr, /^tsingest: salt \d+ of this key does not fit B=32 \(keys\.saltBuckets of the configuration\)/);

  const overridden = keys(['decode', key, '--buckets', '16'], { TSI_SALT_BUCKETS: '32' });
  assert.equal(overridden.code, 0, overridden.stderr);
});

void test('bad flags are usage errors naming the flag', () => {
  const bad = (args: readonly string[], pattern: RegExp): void => {
    const r = keys(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, pattern);
  };
  bad(['encode', '--id', ID, '--ts', String(TS), '--buckets', '300'], /--buckets must be an integer in \[1, 256\], got "300"/);
  bad(['decode', '00', '--buckets', 'x'], /--buckets must be an integer/);
  bad(['encode', '--id', ID, '--ts', String(TS), '--format', 'hex'], /--format must be one of binary, printable/);
  bad(['encode', '--id', ID, '--ts', 'yesterday'], /--ts must be epoch milliseconds or ISO-8601/);
  bad(['decode', 'xyz'], /keys decode needs the key as hex/);
  const badConfig = keys(['encode', '--id', ID, '--ts', String(TS)], { TSI_SALT_BUCKETS: '0' });
  assert.equal(badConfig.code, 1);
  assert.match(badConfig.stderr, /keys\.saltBuckets/);
});

void test('the real CLI: TSI_SALT_BUCKETS reaches keys decode, which exits 1 on a salt that does not fit', () => {
  const key = encodeDataKey({ id: ID, ts: TS }, 16).toString('hex');
  const env = { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('TSI_'))), TSI_SALT_BUCKETS: '32' };
  const cli = new URL('../../../src/cli.ts', import.meta.url).pathname;
  const r = spawnSync(process.execPath, [cli, 'keys', 'decode', key], { env, encoding: 'utf8' });
  assert.equal(r.status, 1, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), decodeReport(Buffer.from(key, 'hex'), 32, 'keys.saltBuckets'));
  assert.match(r.stderr, /^tsingest: salt \d+ of this key does not fit B=32 \(keys\.saltBuckets of the configuration\)/);
});
