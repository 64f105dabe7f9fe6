// Who is calling: the Authorization header (Bearer token or Basic user) or the client certificate
// checked by TLS, against the hashed credentials; anonymous only where the port allows it. Every
// comparison is of hashes in constant time, a Basic user that does not exist costs the same scrypt as
// one that does, and a rejection never says which part was wrong.
import { sameBytes, scryptHash, sha256, type Credentials } from './credentials.ts';
import type { Scope } from './scopes.ts';

export type AuthVia = 'token' | 'basic' | 'cert' | 'anonymous';

export interface Identity {
  /** the credential's name (never the secret); `anonymous` when none was needed */
  readonly name: string;
  readonly via: AuthVia;
  readonly scopes: ReadonlySet<Scope>;
}

/** What the caller presented: plain values taken from the request and its TLS socket. */
export interface Presented {
  readonly authorization?: string | undefined;
  /** the client certificate, when TLS verified it against http.tls.clientCaFile */
  readonly peer?: { readonly authorized: boolean; readonly cn: string | undefined } | undefined;
}

export type AuthOutcome = { readonly ok: true; readonly identity: Identity } | { readonly ok: false; readonly status: 401; readonly reason: string };

/** What an anonymous caller may do where the port has no credentials (loopback, or http.auth.mode none): never admin. */
export const ANONYMOUS: Identity = { name: 'anonymous', via: 'anonymous', scopes: new Set<Scope>(['read', 'ui', 'metrics']) };

const REJECTED = 'the credentials were not accepted';
const CACHE_LIMIT = 256;
/** a salt and hash no password matches, for Basic users that do not exist */
const DUMMY = { salt: Buffer.alloc(16, 1), hash: Buffer.alloc(32, 0) };

export class Authenticator {
  readonly #creds: Credentials;
  readonly #anonymous: boolean;
  /** digests of Basic pairs scrypt accepted, so Grafana's every request does not pay scrypt again */
  readonly #verified = new Map<string, string>();

  /** `anonymous`: a caller without a credential gets ANONYMOUS (http.auth.mode none, or no credentials configured on loopback) */
  constructor(creds: Credentials, options: { readonly anonymous: boolean }) {
    this.#creds = creds;
    this.#anonymous = options.anonymous;
  }

  /** true when a caller must present a credential (the port is not anonymous) */
  get required(): boolean {
    return !this.#anonymous;
  }

  async authenticate(p: Presented): Promise<AuthOutcome> {
    const header = p.authorization?.trim();
    if (header !== undefined && header !== '') return this.#fromHeader(header);
    if (p.peer?.authorized === true && p.peer.cn !== undefined) {
      const cn = p.peer.cn;
      const client = this.#creds.clients.find((c) => c.cn === cn);
      if (client !== undefined) return { ok: true, identity: { name: client.name, via: 'cert', scopes: client.scopes } };
      return { ok: false, status: 401, reason: 'the client certificate is not one of the known identities' };
    }
    if (!this.required) return { ok: true, identity: ANONYMOUS };
    return { ok: false, status: 401, reason: 'credentials required: a Bearer token, Basic user or client certificate' };
  }

  async #fromHeader(header: string): Promise<AuthOutcome> {
    const space = header.indexOf(' ');
    const scheme = (space < 0 ? header : header.slice(0, space)).toLowerCase();
    const value = space < 0 ? '' : header.slice(space + 1).trim();
    if (scheme === 'bearer') return this.#bearer(value);
    if (scheme === 'basic') return this.#basic(value);
    return { ok: false, status: 401, reason: 'unsupported authorization scheme: use Bearer or Basic' };
  }

  #bearer(token: string): AuthOutcome {
    const digest = sha256(token);
    let found: Credentials['tokens'][number] | undefined;
    for (const t of this.#creds.tokens) if (sameBytes(digest, t.digest) && found === undefined) found = t;
    if (found === undefined) return { ok: false, status: 401, reason: REJECTED };
    return { ok: true, identity: { name: found.name, via: 'token', scopes: found.scopes } };
  }

  async #basic(encoded: string): Promise<AuthOutcome> {
    const pair = decodeBasic(encoded);
    if (pair === undefined) return { ok: false, status: 401, reason: 'malformed Basic credentials' };
    const nameDigest = sha256(pair.user);
    let user: Credentials['users'][number] | undefined;
    for (const u of this.#creds.users) if (sameBytes(nameDigest, sha256(u.name)) && user === undefined) user = u;
    const key = sha256(`${pair.user}\0${pair.password}`).toString('hex');
    const cached = this.#verified.get(key);
    if (user !== undefined && cached === user.hash.toString('base64')) return { ok: true, identity: { name: user.name, via: 'basic', scopes: user.scopes } };
    const stored = user ?? DUMMY;
    const hash = await scryptHash(pair.password, stored.salt);
    if (user === undefined || !sameBytes(hash, user.hash)) return { ok: false, status: 401, reason: REJECTED };
    if (this.#verified.size >= CACHE_LIMIT) this.#verified.delete(this.#verified.keys().next().value ?? '');
    this.#verified.set(key, user.hash.toString('base64'));
    return { ok: true, identity: { name: user.name, via: 'basic', scopes: user.scopes } };
  }
}

/** `base64(user:password)` → the pair; undefined when it is not base64 of a pair with a user. */
export function decodeBasic(encoded: string): { user: string; password: string } | undefined {
  if (!/^[A-Za-z0-9+/]+=*$/.test(encoded)) return undefined;
  const text = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = text.indexOf(':');
  if (colon <= 0) return undefined;
  return { user: text.slice(0, colon), password: text.slice(colon + 1) };
}

/** The scopes a request needs that the identity lacks (empty: allowed). */
export function missingScopes(identity: Identity, needed: readonly Scope[]): Scope[] {
  return needed.filter((s) => !identity.scopes.has(s));
}
