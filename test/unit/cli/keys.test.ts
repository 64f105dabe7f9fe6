// tsingest keys encode|decode take B and the key format from the configuration (file, TSI_* env,
// --set) unless --buckets / --printable / --format say otherwise, and a spread id's entry from the
// registry (here a fixed one; the integration tests read the real meta table); decode reports a salt
// that does not fit. The command runs in-process with its output captured; one case runs the real
// CLI with --offline.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../../../src/cli/args.ts';
import { decodeReport, keysCommand, saltMismatchMessage, type EntrySource } from '../../../src/cli/keys.ts';
import { encodeDataKey, encodePrintableDataKey, saltOf, spreadOffset, type SpreadEntry } from '../../../src/keys/index.ts';

const ID = 'sensor-0042';
const TS = 1732262400000;

type Run = { code: number; stdout: string; stderr: string };

/** The registry: no entry for any id unless given (and what was asked). */
function registry(entries: Readonly<Record<string, SpreadEntry>> = {}): EntrySource & { asked: string[] } {
  const asked: string[] = [];
  const source = (_cfg: unknown, id: string): Promise<SpreadEntry | undefined> => {
    asked.push(id);
    return Promise.resolve(entries[id]);
  };
  return Object.assign(source, { asked });
}

/**
 * Runs `tsingest keys …` in this process with exactly the given TSI_* variables set (the others
 * removed for the call), capturing what it writes. A usage error comes back as code 2, like the CLI.
 */
async function keys(args: readonly string[], env: Readonly<Record<string, string>> = {}, entries: EntrySource = registry()): Promise<Run> {
  const saved = Object.entries(process.env).filter(([k]) => k.startsWith('TSI_'));
  for (const [k] of saved) Reflect.deleteProperty(process.env, k);
  Object.assign(process.env, env);
  const stdout: string[] = [];
  const stderr: string[] = [];
  try {
    const code = await keysCommand(args, { out: (l) => stdout.push(l), err: (l) => stderr.push(l) }, entries);
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
  const fits = decodeReport(key, 16, 'keys.saltBuckets', null);
  assert.deepEqual(fits, {
    format: 'binary',
    salt: saltOf(ID, 16),
    id: ID,
    ts: TS,
    iso: new Date(TS).toISOString(),
    buckets: 16,
    bucketsFrom: 'keys.saltBuckets',
    baseSalt: saltOf(ID, 16),
    offset: 0,
    epoch: null,
    registry: 'read',
    expectedSalt: saltOf(ID, 16),
    saltFits: true,
  });
  const other = decodeReport(key, 32, '--buckets');
  assert.notEqual(saltOf(ID, 32), saltOf(ID, 16), 'the test id changes bucket between B=16 and B=32');
  assert.deepEqual([other.salt, other.expectedSalt, other.saltFits, other.registry], [saltOf(ID, 16), saltOf(ID, 32), false, 'not read']);
  assert.match(saltMismatchMessage(other), new RegExp(`salt ${saltOf(ID, 16)} .* does not fit B=32 \\(--buckets\\).* salt ${saltOf(ID, 32)}`));
  const printable = decodeReport(encodePrintableDataKey({ id: ID, ts: TS }, 64), 64, '--buckets');
  assert.deepEqual([printable.format, printable.salt, printable.saltFits], ['printable', saltOf(ID, 64), true]);
});

void test("a spread id: encode puts the key in its epoch's bucket; decode names the epoch and the offset j", async () => {
  const since = TS - 1000;
  const hot: SpreadEntry = { epochs: [{ since, k: 8 }], fence: null };
  const j = spreadOffset(TS, 8);
  assert.notEqual(j, 0, 'the test ts has a non-zero offset');
  const spreadSalt = (saltOf(ID, 16) + j) % 16;
  const reg = registry({ [ID]: hot });
  const enc = await keys(['encode', '--id', ID, '--ts', String(TS)], {}, reg);
  const key = enc.stdout;
  assert.equal(key.slice(0, 2), spreadSalt.toString(16).padStart(2, '0'));
  assert.equal(key.slice(2), encodeDataKey({ id: ID, ts: TS }, 16).toString('hex').slice(2), 'only the salt differs from the plain key');
  const dec = await keys(['decode', key], {}, reg);
  assert.equal(dec.code, 0, dec.stderr);
  const r = JSON.parse(dec.stdout) as Record<string, unknown>;
  assert.deepEqual(
    [r['salt'], r['baseSalt'], r['offset'], r['epoch'], r['expectedSalt'], r['saltFits']],
    [spreadSalt, saltOf(ID, 16), j, { since, k: 8 }, spreadSalt, true],
  );
  // The plain key of an event in a spread epoch is not where the layout puts it.
  const plain = await keys(['decode', encodeDataKey({ id: ID, ts: TS }, 16).toString('hex')], {}, reg);
  assert.equal(plain.code, 1);
  assert.match(plain.stderr, /has salt \d+ \(spread over 8 buckets from .* on\)/);
  // --offline never asks the registry: the plain key.
  const offline = registry({ [ID]: hot });
  assert.equal(
    (await keys(['encode', '--id', ID, '--ts', String(TS), '--offline'], {}, offline)).stdout,
    encodeDataKey({ id: ID, ts: TS }, 16).toString('hex'),
  );
  assert.deepEqual(offline.asked, []);
});

void test('encode uses keys.saltBuckets from the environment, a config file or --set; --buckets wins', async () => {
  const hex = (b: number): string => encodeDataKey({ id: ID, ts: TS }, b).toString('hex');
  assert.equal((await keys(['encode', '--id', ID, '--ts', String(TS)])).stdout, hex(16), 'default B = 16');
  assert.equal((await keys(['encode', '--id', ID, '--ts', String(TS)], { TSI_SALT_BUCKETS: '32' })).stdout, hex(32));
  const file = join(mkdtempSync(join(tmpdir(), 'keys-cli-')), 'c.json');
  writeFileSync(file, JSON.stringify({ keys: { saltBuckets: 64 } }));
  assert.equal((await keys(['encode', '--id', ID, '--ts', String(TS), '--config', file])).stdout, hex(64));
  assert.equal((await keys(['encode', '--id', ID, '--ts', String(TS), '--set', 'keys.saltBuckets=8'])).stdout, hex(8));
  assert.equal((await keys(['encode', '--id', ID, '--ts', String(TS), '--buckets', '16'], { TSI_SALT_BUCKETS: '32' })).stdout, hex(16));
  assert.equal((await keys(['encode', '--id', ID, '--ts', '2024-11-22T08:00:00Z', '--buckets', '16'])).stdout, hex(16), '--ts takes ISO-8601 too');
});

void test('encode follows keys.format unless --printable or --format is given', async () => {
  const printable = encodePrintableDataKey({ id: ID, ts: TS }, 32).toString('hex');
  const binary = encodeDataKey({ id: ID, ts: TS }, 32).toString('hex');
  const env = { TSI_SALT_BUCKETS: '32' };
  assert.equal((await keys(['encode', '--id', ID, '--ts', String(TS), '--set', 'keys.format=printable'], env)).stdout, printable);
  assert.equal((await keys(['encode', '--id', ID, '--ts', String(TS), '--printable'], env)).stdout, printable);
  assert.equal((await keys(['encode', '--id', ID, '--ts', String(TS), '--format', 'binary', '--set', 'keys.format=printable'], env)).stdout, binary);
});

void test('decode reports a salt that does not fit the configured B and exits 1', async () => {
  const key = encodeDataKey({ id: ID, ts: TS }, 16).toString('hex');
  const ok = await keys(['decode', key]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.deepEqual(JSON.parse(ok.stdout), decodeReport(Buffer.from(key, 'hex'), 16, 'keys.saltBuckets', null));

  const off = await keys(['decode', key], { TSI_SALT_BUCKETS: '32' });
  assert.equal(off.code, 1);
  const report = JSON.parse(off.stdout) as Record<string, unknown>;
  assert.deepEqual(
    [report['id'], report['ts'], report['salt'], report['buckets'], report['expectedSalt'], report['saltFits']],
    [ID, TS, saltOf(ID, 16), 32, saltOf(ID, 32), false],
  );
  assert.match(off.stderr, /^tsingest: salt \d+ of this key does not fit B=32 \(keys\.saltBuckets of the configuration\)/);

  const overridden = await keys(['decode', key, '--buckets', '16'], { TSI_SALT_BUCKETS: '32' });
  assert.equal(overridden.code, 0, overridden.stderr);
});

void test('bad flags are usage errors naming the flag', async () => {
  const bad = async (args: readonly string[], pattern: RegExp): Promise<void> => {
    const r = await keys(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, pattern);
  };
  await bad(['encode', '--id', ID, '--ts', String(TS), '--buckets', '300'], /--buckets must be an integer in \[1, 256\], got "300"/);
  await bad(['decode', '00', '--buckets', 'x'], /--buckets must be an integer/);
  await bad(['encode', '--id', ID, '--ts', String(TS), '--format', 'hex'], /--format must be one of binary, printable/);
  await bad(['encode', '--id', ID, '--ts', 'yesterday'], /--ts must be epoch milliseconds or ISO-8601/);
  await bad(['decode', 'xyz'], /keys decode needs the key as hex/);
  const badConfig = await keys(['encode', '--id', ID, '--ts', String(TS)], { TSI_SALT_BUCKETS: '0' });
  assert.equal(badConfig.code, 1);
  assert.match(badConfig.stderr, /keys\.saltBuckets/);
});

void test('the real CLI: TSI_SALT_BUCKETS reaches keys decode --offline, which exits 1 on a salt that does not fit', () => {
  const key = encodeDataKey({ id: ID, ts: TS }, 16).toString('hex');
  const env = { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('TSI_'))), TSI_SALT_BUCKETS: '32' };
  const cli = new URL('../../../src/cli.ts', import.meta.url).pathname;
  const r = spawnSync(process.execPath, [cli, 'keys', 'decode', key, '--offline'], { env, encoding: 'utf8' });
  assert.equal(r.status, 1, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), decodeReport(Buffer.from(key, 'hex'), 32, 'keys.saltBuckets'));
  assert.match(r.stderr, /^tsingest: salt \d+ of this key does not fit B=32 \(keys\.saltBuckets of the configuration\)/);
});
