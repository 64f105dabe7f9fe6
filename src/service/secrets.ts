// Secrets and PEM material from files (Kubernetes secrets mount as files): read with errors that
// name the setting and the path, never the content; a token file read again when it changes.
import { readFileSync, statSync } from 'node:fs';
import { ConfigError } from '../runtime/config.ts';

/** A secret or PEM file's text; a trailing newline (as `echo` and kubectl write) is dropped. */
export function readSecretFile(key: string, path: string): string {
  try {
    return readFileSync(path, 'utf8').replace(/\r?\n$/, '');
  } catch (err) {
    throw new ConfigError(`${key}: cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { cause: err });
  }
}

/** A token file read again when its mtime or size changes, checked at most once per `everyMs`. */
export function rotatingFile(key: string, path: string, everyMs: number, now: () => number): () => string {
  let value = readSecretFile(key, path);
  let stamp = fileStamp(path);
  let checkedAt = now();
  return () => {
    if (now() - checkedAt < everyMs) return value;
    checkedAt = now();
    const next = fileStamp(path);
    if (next !== stamp && next !== '') {
      value = readSecretFile(key, path);
      stamp = next;
    }
    return value;
  };
}

function fileStamp(path: string): string {
  try {
    const s = statSync(path);
    return `${s.mtimeMs}:${s.size}:${s.ino}`;
  } catch {
    return ''; // mid-rotation (the symlink swapped): keep the last token
  }
}

/** The PEM settings both clients take (hbase.tls, kafka.tls). */
export interface TlsFileSettings {
  readonly caFile: string | null;
  readonly certFile: string | null;
  readonly keyFile: string | null;
  readonly keyPassphraseFile: string | null;
  readonly serverName: string | null;
}

/** Node TLS options from PEM files; each read error names `${prefix}.<key>`. */
export function tlsFromFiles(prefix: string, t: TlsFileSettings): { ca?: string; cert?: string; key?: string; passphrase?: string; servername?: string } {
  const read = (key: keyof TlsFileSettings, path: string | null): string | undefined => (path === null ? undefined : readSecretFile(`${prefix}.${key}`, path));
  const ca = read('caFile', t.caFile);
  const cert = read('certFile', t.certFile);
  const key = read('keyFile', t.keyFile);
  const passphrase = read('keyPassphraseFile', t.keyPassphraseFile);
  return {
    ...(ca === undefined ? {} : { ca }),
    ...(cert === undefined ? {} : { cert }),
    ...(key === undefined ? {} : { key }),
    ...(passphrase === undefined ? {} : { passphrase }),
    ...(t.serverName === null ? {} : { servername: t.serverName }),
  };
}
