// tsingest auth hash --token | --password [--name N --scopes a,b]
// The stored form of a credential of the service's own port (docs/SECURITY.md, "The service's own
// port"): the secret is read from stdin (never a flag, so it stays out of shell history and `ps`),
// and the entry for http.auth.credentialsFile is printed as JSON: the hash, never the secret.
import { parseArgs } from 'node:util';
import { hashPassword, hashToken } from '../front-door/credentials.ts';
import { parseScopes } from '../front-door/scopes.ts';
import { UsageError } from './args.ts';

export const AUTH_USAGE = 'tsingest auth hash --token|--password [--name NAME] [--scopes read,ui,metrics,admin]   (the secret on stdin)';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

export async function authCommand(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: {
      token: { type: 'boolean' },
      password: { type: 'boolean' },
      name: { type: 'string', default: 'caller' },
      scopes: { type: 'string', default: 'read' },
    },
    allowPositionals: true,
  });
  if (positionals[0] !== 'hash' || values.token === values.password) throw new UsageError(AUTH_USAGE);
  let scopes: string[];
  try {
    scopes = [
      ...parseScopes(
        '--scopes',
        values.scopes.split(',').map((s) => s.trim()),
      ),
    ];
  } catch (err) {
    throw new UsageError((err as Error).message, { cause: err });
  }
  const secret = await readStdin();
  if (secret === '') throw new UsageError('the secret is read from stdin, which was empty');
  const entry =
    values.token === true
      ? { section: 'tokens', name: values.name, sha256: hashToken(secret), scopes }
      : { section: 'users', name: values.name, scrypt: await hashPassword(secret), scopes };
  const { section, ...rest } = entry;
  process.stdout.write(`${JSON.stringify({ [section]: [rest] })}\n`);
  return 0;
}
