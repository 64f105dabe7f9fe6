/**
 * Pure: the path of an HTTP request exactly as the client sent it (no dot segments removed, no `\`
 * turned into `/`), for the read API's routing.
 * Design notes: docs/DECISIONS.md#request-paths-as-sent
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
