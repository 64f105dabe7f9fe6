// SPNEGO tokens from the system's Kerberos (MIT GSS-API) through the optional `kerberos` npm
// package (mongodb-js, a native N-API addon). The only file that loads it. It is an optional
// dependency: `npm ci` builds it where libkrb5-dev (krb5-devel), python3, make and g++ are present and
// leaves it out elsewhere, so a deployment without Kerberos needs none of that; hbase.auth.type
// spnego then fails at start with what to install. Credentials come from the standard Kerberos
// environment, read by the library at every token: the ticket cache (KRB5CCNAME, filled by kinit) or
// a client keytab (KRB5_CLIENT_KTNAME; MIT gets and renews tickets from it by itself).
import { createRequire } from 'node:module';
import { HBaseError } from './errors.ts';
import type { NegotiateToken } from './spnego-transport.ts';

/** The part of the `kerberos` package used here (its own types are not needed to type-check without it). */
interface KerberosModule {
  readonly GSS_MECH_OID_SPNEGO: number;
  initializeClient(service: string, options: { mechOID: number }): Promise<{ step(challenge: string): Promise<string> }>;
}

let loaded: KerberosModule | undefined;

/** Loads the optional package once; throws an error that says what to install when it is missing. */
export function loadKerberos(): KerberosModule {
  if (loaded !== undefined) return loaded;
  try {
    loaded = createRequire(import.meta.url)('kerberos') as KerberosModule;
    return loaded;
  } catch (err) {
    throw new HBaseError({
      code: 'HBASE_INVALID_ARGUMENT',
      message:
        'hbase.auth.type is spnego, but the optional `kerberos` package (a native addon) is not installed or does not load: ' +
        'install the Kerberos headers and a compiler (Debian/Ubuntu: apt-get install libkrb5-dev python3 make g++; RHEL: krb5-devel) ' +
        `and run npm ci again (${err instanceof Error ? (err.message.split('\n', 1)[0] ?? '') : String(err)})`,
      cause: err,
    });
  }
}

/** `HTTP@host` (a GSS host-based service name) from `HTTP/host@REALM`, `HTTP/host` or `HTTP@host`. */
export function gssServiceName(principal: string): string {
  const m = /^([^/@]+)\/([^/@]+)(?:@[^/@]+)?$/.exec(principal);
  return m === null ? principal : `${m[1] ?? ''}@${m[2] ?? ''}`;
}

/**
 * A NegotiateToken for `service` (`HTTP@gateway-host`). Every call starts a new security context, so
 * every token carries a fresh authenticator. A failure (no ticket, expired ticket, KDC unreachable,
 * unknown service principal) is an HBASE_UNAUTHORIZED HBaseError, handled like a gateway's 401: an outage for
 * the write path, never a bad row.
 */
export function kerberosToken(service: string, krb: KerberosModule = loadKerberos()): NegotiateToken {
  return async () => {
    try {
      const client = await krb.initializeClient(service, { mechOID: krb.GSS_MECH_OID_SPNEGO });
      return await client.step('');
    } catch (err) {
      const detail = err instanceof Error ? err.message : String(err);
      throw new HBaseError({
        code: 'HBASE_UNAUTHORIZED',
        retriable: false,
        message:
          `SPNEGO: no Kerberos token for ${service} (hbase.auth: a ticket in KRB5CCNAME from kinit, or a keytab in KRB5_CLIENT_KTNAME; ` +
          `hbase.auth.servicePrincipal names the gateway's HTTP principal): ${detail}`,
        cause: err,
      });
    }
  };
}
