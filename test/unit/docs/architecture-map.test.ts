// docs/ARCHITECTURE.md opens with a map of the rooms: one line per folder of src/ (and src/cli.ts,
// src/errors.ts) and per folder of scripts/lib/. The map is read here and held against the folders as
// they are, so a room that is added, moved or renamed cannot leave the map behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../../..');

/** The fenced block under "## Layout" of docs/ARCHITECTURE.md. */
function layoutMap(): string {
  const text = readFileSync(join(ROOT, 'docs/ARCHITECTURE.md'), 'utf8');
  const block = /## Layout[^\n]*\n+```\n([\s\S]*?)\n```/.exec(text);
  assert.ok(block !== null, 'docs/ARCHITECTURE.md has a fenced map under "## Layout"');
  return block[1] as string;
}

/** Folders (as `name/`) and .ts files directly under `dir`. */
function entries(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true })
    .filter((e) => e.isDirectory() || e.name.endsWith('.ts'))
    .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
    .sort();
}

void test('the map has one line per room of src/, each by its real name', () => {
  const listed = [...layoutMap().matchAll(/^src\/(\S+?\/|\S+?\.ts)\s/gm)].map((m) => m[1] as string).sort();
  assert.deepEqual(listed, entries('src'));
});

void test('the map names every folder of scripts/lib/, and no other', () => {
  const listed = [...new Set([...layoutMap().matchAll(/\blib\/([a-z][a-z0-9-]*)\//g)].map((m) => `${m[1] as string}/`))].sort();
  assert.deepEqual(
    listed,
    entries('scripts/lib').filter((e) => e.endsWith('/')),
  );
});
