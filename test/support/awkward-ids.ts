// Ids (and tag values) that URL handling tends to mangle, each with the path segments that must read
// it, and a GET that sends a path byte for byte: node:http's request({ path }) does not normalise,
// unlike fetch/undici, which drop `.`/`..` segments (also `%2E`-encoded ones) before sending.
import { request } from 'node:http';

export interface AwkwardId {
  readonly id: string;
  /** raw path segments that must all name this id (encodeURIComponent(id) first) */
  readonly segments: readonly string[];
}

/** 40 × 3-byte + 8 × 1-byte characters: the longest id allowed (MAX_ID_BYTES), with awkward ones in it */
export const LONGEST_ID = `${'设'.repeat(40)}./%?#+ \\`;

const awkward = (id: string, ...raw: string[]): AwkwardId => ({ id, segments: [...new Set([encodeURIComponent(id), ...raw])] });

export const AWKWARD_IDS: readonly AwkwardId[] = [
  awkward('.', '%2E', '%2e'),
  awkward('..', '%2E%2E', '.%2E', '%2e.'),
  awkward('/', '%2F'),
  awkward('a/b', 'a%2fb'),
  awkward('%2F', '%252F'),
  awkward('?', '%3F'),
  awkward('#', '%23'),
  awkward('a b', 'a%20b'),
  awkward('a+b', 'a+b'),
  awkward('+', '+'),
  awkward('%', '%25'),
  awkward('a\\b', 'a\\b'),
  awkward('设备-7'),
  awkward('📡-sat'),
  awkward(LONGEST_ID),
];

/** Tag values for by-tag reads, with their raw segments. */
export const AWKWARD_VALUES: readonly AwkwardId[] = [awkward('.', '%2E'), awkward('..', '%2E%2E'), awkward('/', '%2F')];

export interface RawResponse {
  readonly status: number;
  readonly body: unknown;
}

/** GET of `path` exactly as given (no normalisation, no encoding); the body parsed as JSON. */
export function getRaw(port: number, path: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET' }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => {
        chunks.push(c);
      });
      res.on('error', reject);
      res.on('end', () => {
        try {
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown });
        } catch (err) {
          reject(new Error(`GET ${path}: the body is not JSON`, { cause: err }));
        }
      });
    });
    req.on('error', reject);
    req.end();
  });
}
