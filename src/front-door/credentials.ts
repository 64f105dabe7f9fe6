// The credentials of the service's own port: bearer tokens, Basic users and mTLS identities, each with
// its scopes, stored as hashes only (a token as its SHA-256, a password as scrypt with a salt).
// Parsing and hashing are pure; the file is read by front-door.ts.
import { InputError } from '../errors.ts';
import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { SCOPES, type Scope } from './scopes.ts';

const scopes = z.array(z.enum(SCOPES)).min(1);
const name = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[\w.@:-]+$/, 'letters, digits and . _ - @ : only');

/** The credentials document (http.auth.credentialsFile, http.auth.credentials, TSI_HTTP_CREDENTIALS). */
export const credentialsSchema = z
  .object({
    tokens: z
      .array(
        z
          .object({
            name,
            sha256: z.string().regex(/^[0-9a-f]{64}$/, 'the hex SHA-256 of the token (`tsingest auth hash --token`), never the token'),
            scopes,
          })
          .strict(),
      )
      .default([]),
    users: z
      .array(
        z
          .object({
            name,
            scrypt: z.string().regex(/^[A-Za-z0-9+/=]{16,}:[A-Za-z0-9+/=]{40,}$/, 'salt:hash in base64 (`tsingest auth hash --password`), never the password'),
            scopes,
          })
          .strict(),
      )
      .default([]),
    clients: z
      .array(
        z
          .object({
            name,
            /** the client certificate's subject CN (the certificate must be signed by http.tls.clientCaFile) */
            cn: z.string().min(1),
            scopes,
          })
          .strict(),
      )
      .default([]),
  })
  .strict();

export interface Credential {
  readonly name: string;
  readonly scopes: ReadonlySet<Scope>;
}

export interface Credentials {
  readonly tokens: readonly (Credential & { readonly digest: Buffer })[];
  readonly users: readonly (Credential & { readonly salt: Buffer; readonly hash: Buffer })[];
  readonly clients: readonly (Credential & { readonly cn: string })[];
}

export const NO_CREDENTIALS: Credentials = { tokens: [], users: [], clients: [] };

/** Validates a credentials document; throws with the path of the first bad entry (never a value). */
export function parseCredentials(raw: unknown): Credentials {
  const r = credentialsSchema.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new InputError(`${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
  }
  const doc = r.data;
  const seen = new Set<string>();
  for (const n of [...doc.tokens, ...doc.users, ...doc.clients].map((c) => c.name)) {
    if (seen.has(n)) throw new InputError(`the name ${n} is given twice (names identify callers in the log)`);
    seen.add(n);
  }
  return {
    tokens: doc.tokens.map((t) => ({ name: t.name, scopes: new Set(t.scopes), digest: Buffer.from(t.sha256, 'hex') })),
    users: doc.users.map((u) => {
      const [salt = '', hash = ''] = u.scrypt.split(':');
      return { name: u.name, scopes: new Set(u.scopes), salt: Buffer.from(salt, 'base64'), hash: Buffer.from(hash, 'base64') };
    }),
    clients: doc.clients.map((c) => ({ name: c.name, scopes: new Set(c.scopes), cn: c.cn })),
  };
}

export function countCredentials(c: Credentials): number {
  return c.tokens.length + c.users.length + c.clients.length;
}

/** A token's stored form: its hex SHA-256. */
export function hashToken(token: string): string {
  return sha256(token).toString('hex');
}

export function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

const SCRYPT = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const;
const KEY_LEN = 32;

export function scryptHash(password: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, KEY_LEN, SCRYPT, (err, key) => {
      if (err === null) resolve(key);
      else reject(err);
    });
  });
}

/** A password's stored form: `salt:hash`, base64 each (scrypt N=16384, r=8, p=1, 32 bytes). */
export async function hashPassword(password: string, salt: Buffer = randomBytes(16)): Promise<string> {
  return `${salt.toString('base64')}:${(await scryptHash(password, salt)).toString('base64')}`;
}

/** Equal-length buffers compared in constant time; different lengths are unequal (lengths are not secret here: hashes). */
export function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
