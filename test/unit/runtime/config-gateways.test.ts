// hbase.restUrls beside hbase.restUrl: the two forms of the gateway setting, their precedence over
// the sources, and the checks every gateway URL must pass (scheme, path, TLS, duplicates).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hbaseRestUrls, loadConfig } from '../../../src/runtime/config.ts';
import { assertRefused, tempFiles } from '../../support/config-files.ts';

const { dir } = tempFiles('tsi-gw-');
const urls = (env: NodeJS.ProcessEnv, sets: string[] = [], file?: string): string[] => hbaseRestUrls(loadConfig({ env, sets, file }).hbase);

test('restUrl is the one-gateway form; restUrls lists several (env comma-separated)', () => {
  assert.deepEqual(urls({}), ['http://127.0.0.1:8080']);
  assert.deepEqual(urls({ TSI_HBASE_REST_URL: 'http://gw:1' }), ['http://gw:1']);
  assert.deepEqual(urls({ TSI_HBASE_REST_URLS: 'http://gw:1, http://gw:2' }), ['http://gw:1', 'http://gw:2']);
  assert.deepEqual(urls({}, ['hbase.restUrls=["http://gw:1","http://gw:2"]']), ['http://gw:1', 'http://gw:2']);
});

test("a later source's form replaces an earlier one; one source may not set both", () => {
  assert.deepEqual(urls({ TSI_HBASE_REST_URL: 'http://env:1' }, ['hbase.restUrls=http://a:1,http://b:1']), ['http://a:1', 'http://b:1']);
  assert.deepEqual(urls({ TSI_HBASE_REST_URLS: 'http://a:1,http://b:1' }, ['hbase.restUrl=http://one:1']), ['http://one:1']);
  assert.deepEqual(urls({}, ['hbase.restUrls=http://a:1,http://b:1', 'hbase.restUrl=http://one:1']), ['http://one:1'], 'flags in order');
  const f = join(dir, 'both.json');
  writeFileSync(f, JSON.stringify({ hbase: { restUrl: 'http://a:1', restUrls: ['http://a:1', 'http://b:1'] } }));
  assert.throws(() => urls({}, [], f), /set one of hbase\.restUrl and hbase\.restUrls/);
  assert.throws(() => urls({ TSI_HBASE_REST_URL: 'http://a:1', TSI_HBASE_REST_URLS: 'http://a:1' }), /environment: set one of/);
  const g = join(dir, 'list.json');
  writeFileSync(g, JSON.stringify({ hbase: { restUrls: ['http://a:1', 'http://b:1'] } }));
  assert.deepEqual(urls({ TSI_HBASE_REST_URL: 'http://env:1' }, [], g), ['http://env:1'], 'the environment over the file');
});

test('every gateway: same scheme, same path, https when hbase.tls is set, none twice', () => {
  assertRefused(['hbase.restUrls=http://a:1,https://b:1'], /hbase\.restUrls: every gateway must use the same scheme/);
  assertRefused(['hbase.restUrls=https://a:1/gateway/hbase,https://b:1/other'], /hbase\.restUrls: every gateway must have the same path/);
  assertRefused(['hbase.restUrls=http://a:1,http://a:1/'], /hbase\.restUrls: http:\/\/a:1 is listed twice/);
  assertRefused(['hbase.restUrls=ftp://a:1'], /not http or https/);
  assertRefused(['hbase.restUrls=https://a:1,http://b:1', 'hbase.tls.caFile=/ca.pem'], /same scheme/);
  assertRefused(['hbase.restUrls=http://a:1,http://b:1', 'hbase.tls.caFile=/ca.pem'], /hbase\.tls\.caFile set, but hbase\.restUrls is not https: http:\/\/a:1/);
  assert.deepEqual(urls({}, ['hbase.restUrls=https://a:1/gateway/hbase,https://b:1/gateway/hbase/', 'hbase.tls.serverName=gw']), [
    'https://a:1/gateway/hbase',
    'https://b:1/gateway/hbase/',
  ]);
});

test('credentials in a gateway URL are refused without echoing them', () => {
  for (const env of [
    { TSI_HBASE_REST_URL: 'https://ingest:s3cr3t-pw@gw:8443' },
    { TSI_HBASE_REST_URLS: 'https://gw1:8443,https://ingest:s3cr3t-pw@gw2:8443' },
  ]) {
    assert.throws(
      () => loadConfig({ env, sets: [] }),
      (e: unknown) => {
        const m = (e as Error).message;
        assert.match(m, /credentials in the URL are refused.*use hbase\.auth/);
        assert.match(m, /https:\/\/gw2?:8443/);
        assert.doesNotMatch(m, /s3cr3t-pw|ingest@/);
        return true;
      },
    );
  }
});
