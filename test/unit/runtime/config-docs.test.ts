// Config health: every key of the one schema has a description, and docs/CONFIG.md is exactly what
// `npm run config:docs` generates from the schema (defaults, types, env variables, descriptions).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { CONFIG_DOCS_PATH, configKeys, renderConfigDocs, typeOf, undescribed } from '../../../scripts/config-docs.ts';
import { configSchema } from '../../../src/runtime/config-schema.ts';
import { ENV_KEYS, loadConfig } from '../../../src/runtime/config.ts';

/** Dotted paths of every non-object value in a plain tree (arrays and null are values). */
function leafPaths(tree: unknown, prefix: readonly string[] = []): string[] {
  // an empty object is a value too: a map such as tables.rollup.ttlByWindow, empty by default
  if (typeof tree !== 'object' || tree === null || Array.isArray(tree) || Object.keys(tree).length === 0) return [prefix.join('.')];
  return Object.entries(tree).flatMap(([k, v]) => leafPaths(v, [...prefix, k]));
}

void test('every config key and group has a one-line description', () => {
  assert.deepEqual(undescribed(), [], "add .describe('…') to these keys in src/runtime/config-schema.ts");
  for (const k of configKeys().keys) {
    assert.ok(k.description !== undefined && !k.description.includes('\n'), `${k.key}: one line`);
  }
});

void test('the reference lists every key of the loaded configuration with its real default', () => {
  const defaults = loadConfig({ env: {} });
  const keys = configKeys().keys;
  assert.deepEqual(keys.map((k) => k.key).sort(), leafPaths(defaults).sort());
  for (const k of keys) {
    const actual = k.key.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown>)[part], defaults);
    assert.deepEqual(k.defaultValue, actual, `default of ${k.key}`);
  }
  for (const [env, key] of Object.entries(ENV_KEYS)) {
    assert.equal(keys.find((k) => k.key === key)?.env, env, `${env} is shown beside ${key}`);
  }
});

void test('docs/CONFIG.md is up to date (run npm run config:docs)', () => {
  const page = readFileSync(CONFIG_DOCS_PATH, 'utf8');
  assert.equal(page, renderConfigDocs(), 'docs/CONFIG.md is stale: run npm run config:docs');
  for (const k of configKeys().keys) assert.ok(page.includes(`| \`${k.key}\` |`), `${k.key} has a row`);
});

void test('a key without a description is reported by name', () => {
  const schema = z
    .object({
      a: z
        .object({ described: z.number().default(1).describe('one'), bare: z.string().default('x') })
        .prefault({})
        .describe('group a'),
      b: z.object({ n: z.boolean().default(false).describe('flag') }).prefault({}),
    })
    .strict();
  assert.deepEqual(undescribed(schema).sort(), ['a.bare', 'b']);
  const keys = configKeys(schema).keys;
  assert.deepEqual(
    keys.map((k) => [k.key, k.defaultValue]),
    [
      ['a.described', 1],
      ['a.bare', 'x'],
      ['b.n', false],
    ],
  );
});

void test('types render with their constraints', () => {
  const show = (s: z.ZodType): string => typeOf(z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' }) as Parameters<typeof typeOf>[0]);
  assert.equal(show(z.number().int().min(1).max(256)), 'integer 1–256');
  assert.equal(show(z.number().int().min(100)), 'integer ≥ 100');
  assert.equal(show(z.number().int().positive().nullable()), 'integer > 0 or null');
  assert.equal(show(z.enum(['a', 'b'])), 'one of `"a"`, `"b"`');
  assert.equal(show(z.array(z.string().min(1)).min(1)), 'list of non-empty string, at least 1');
  assert.equal(show(z.url()), 'URL');
  assert.equal(show(configSchema.shape.events.unwrap().shape.maxTs), 'epoch ms or ISO-8601 with a zone');
});
