// Which scope each path of the service's own port needs (docs/SECURITY.md, "The service's own
// port"). Pure: a path in, a decision out.

import { InputError } from '../errors.ts';

export const SCOPES = ['read', 'ui', 'metrics', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

/** The probes: open to anyone, and they reveal nothing beyond ready or not to a caller without a credential. */
export const OPEN_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz']);

/**
 * The scopes a request needs (none: a probe, open to anyone): `metrics` for /metrics, `ui` for /ui and
 * below, `read` for everything else (the read API /api/v1/…, the OpenTSDB API /api/…, and any other
 * path, which then gets its 404 only once authenticated: an anonymous caller learns nothing about
 * routes). The server routes on the WHATWG-normalised pathname while the read API reads the path as
 * sent, so both are judged and the caller must hold the scope of each (`/ui/%2e%2e/metrics` needs ui
 * and metrics); a path is open only when both forms are a probe.
 */
export function scopesFor(pathname: string, raw: string = pathname): readonly Scope[] {
  const a = scopeOfPath(pathname);
  const b = scopeOfPath(raw.split('?')[0] ?? raw);
  if (a === 'open' && b === 'open') return [];
  const need = new Set<Scope>();
  for (const s of [a, b]) need.add(s === 'open' ? 'read' : s);
  return [...need];
}

function scopeOfPath(path: string): Scope | 'open' {
  if (OPEN_PATHS.has(path)) return 'open';
  if (path === '/metrics') return 'metrics';
  if (path === '/ui' || path.startsWith('/ui/')) return 'ui';
  return 'read';
}

/** Parses a scope list from a credentials file; unknown names are an error naming the entry. */
export function parseScopes(where: string, raw: unknown): ReadonlySet<Scope> {
  if (!Array.isArray(raw) || raw.length === 0) throw new InputError(`${where}.scopes: a non-empty list of ${SCOPES.join(', ')}`);
  const out = new Set<Scope>();
  for (const s of raw) {
    if (typeof s !== 'string' || !(SCOPES as readonly string[]).includes(s))
      throw new InputError(`${where}.scopes: unknown scope ${JSON.stringify(s)} (one of ${SCOPES.join(', ')})`);
    out.add(s as Scope);
  }
  return out;
}
