// Unit-test helpers for settings that point at files: a temp dir to write them in, and the check
// that a configuration is refused with an error naming the key.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../src/runtime/index.ts';

/** A fresh temp dir and a writer of files in it (returns the path). */
export function tempFiles(prefix: string): { readonly dir: string; readonly file: (name: string, text: string) => string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const file = (name: string, text: string): string => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };
  return { dir, file };
}

/** loadConfig with these --set pairs (no environment) throws a ConfigError matching `key`. */
export function assertRefused(sets: readonly string[], key: RegExp): void {
  assert.throws(
    () => loadConfig({ env: {}, sets }),
    (e: unknown) => e instanceof ConfigError && key.test(e.message),
    `${sets.join(' ')} → ${String(key)}`,
  );
}
