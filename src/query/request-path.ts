/**
 * Pure: the path of an HTTP request exactly as the client sent it, for the read API's routing.
 *
 * The read API does not route on `new URL(req.url, base).pathname`: WHATWG URL parsing removes dot
 * segments, percent-encoded ones too (`%2E`, `%2e%2E`, `.%2E`), and turns `\` into `/`, so the ids
 * `.`, `..` or `a\b` would name another path. Here nothing is normalised:
 *
 * - the path is the request-target up to its first `?` (the query string, parsed by URLSearchParams
 *   as before) or `#` (a fragment, which clients do not send; URL parsing stops the query there too,
 *   so the path and the query always agree);
 * - an absolute-form target (`http://host/path`, as sent to proxies) loses its scheme and authority;
 * - the caller splits it on `/` before any decoding and percent-decodes each segment, so `%2F` is a
 *   `/` inside an id, `.`/`..` (literal or encoded) are ordinary segments, and `+` is a plus.
 *
 * Node's HTTP parser only accepts printable ASCII in the request-target, so the result is ASCII.
 */
const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/;

export function requestPath(target: string): string {
  let path = target;
  if (!path.startsWith('/')) {
    const authority = ABSOLUTE_FORM.exec(path);
    path = authority === null ? '' : path.slice(authority[0].length);
  }
  const end = path.search(/[?#]/);
  return end === -1 ? path : path.slice(0, end);
}
