// TLS material and the Authorization header of the REST client, from the configuration: files are
// read here (Kubernetes secrets mount as files), once at start, except a Bearer token file, which is
// read again when it changes (projected tokens rotate). SPNEGO is a per-gateway transport decorator
// instead of a header (it keeps the gateway's cookie). Every error names the setting, never a secret.
import { SpnegoTransport, gssServiceName, kerberosToken, loadKerberos, type Authorization, type HttpTransport, type TransportTls } from '../hbase/index.ts';
import { hbaseRestUrls, type Config } from '../runtime/config.ts';
import { readSecretFile, rotatingFile, tlsFromFiles } from './secrets.ts';

type HBaseSettings = Config['hbase'];

/** TLS options for the transport, or undefined for plain http or the system trust store alone. */
export function restTls(h: HBaseSettings): TransportTls | undefined {
  const t = h.tls;
  if (t.caFile === null && t.certFile === null && t.serverName === null) return undefined;
  return tlsFromFiles('hbase.tls', t);
}

/** The Authorization header per request, or undefined for hbase.auth.type none. */
export function restAuthorization(h: HBaseSettings, now: () => number = Date.now): Authorization | undefined {
  const a = h.auth;
  if (a.type === 'basic') {
    const password = a.password ?? readSecretFile('hbase.auth.passwordFile', a.passwordFile ?? '');
    const header = `Basic ${Buffer.from(`${a.username ?? ''}:${password}`, 'utf8').toString('base64')}`;
    return () => header;
  }
  if (a.type === 'bearer') {
    if (a.token !== null) {
      const header = `Bearer ${a.token}`;
      return () => header;
    }
    const token = rotatingFile('hbase.auth.tokenFile', a.tokenFile ?? '', 1000, now);
    return () => `Bearer ${token()}`;
  }
  return undefined;
}

// Node's certificate verification and TLS handshake failures (the code on the socket error), and
// OpenSSL's own (a client key that does not decrypt with its passphrase, a key that does not match).
const TLS_FAILURE = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|ERR_TLS|ERR_SSL|ERR_OSSL|EPROTO/;

/** A failure to reach the gateway explained by hbase.tls (untrusted certificate, wrong name, handshake, client key), or undefined when it is not one. */
export function explainHBaseTlsFailure(h: HBaseSettings, err: unknown): string | undefined {
  const seen = new Set<unknown>();
  const chain: string[] = [];
  for (let e: unknown = err; e instanceof Error && !seen.has(e); e = e.cause) {
    seen.add(e);
    chain.push(e.message);
    const code = (e as { code?: unknown }).code;
    if (typeof code !== 'string' || !TLS_FAILURE.test(code)) continue;
    const t = h.tls;
    if (code.startsWith('ERR_OSSL') && t.keyFile !== null) {
      return `TLS to the HBase REST gateway failed: the client key could not be used: check hbase.tls.keyFile (${t.keyFile}), hbase.tls.keyPassphraseFile and hbase.tls.certFile: ${e.message}`;
    }
    const trust = t.caFile === null ? 'the system trust store (hbase.tls.caFile not set)' : `hbase.tls.caFile ${t.caFile}`;
    const urls = hbaseRestUrls(h);
    // The transport names the origin it called in its message (src/hbase/undici-transport.ts).
    const failed = urls.filter((u) => chain.some((m) => m.includes(new URL(u).origin)));
    const which = urls.length > 1 && failed.length > 0 ? ` of ${failed.join(', ')}` : '';
    const name =
      t.serverName === null ? `the host of ${failed.length > 0 ? 'the gateway' : `each gateway (${urls.join(', ')})`}` : `hbase.tls.serverName ${t.serverName}`;
    return `TLS to the HBase REST gateway${which} failed: check hbase.tls against the gateway's certificate (trusted CAs: ${trust}; name checked: ${name}): ${e.message}`;
  }
  return undefined;
}

/**
 * hbase.auth.type spnego: the decorator of each gateway's transport (SpnegoTransport with Kerberos
 * tokens for hbase.auth.servicePrincipal, default HTTP@<gateway host>), or undefined for other types.
 * Throws at once when the optional `kerberos` package is missing.
 */
export function restAuthTransport(h: HBaseSettings): ((transport: HttpTransport, origin: string) => HttpTransport) | undefined {
  if (h.auth.type !== 'spnego') return undefined;
  const krb = loadKerberos();
  const principal = h.auth.servicePrincipal;
  return (transport, origin) => {
    const service = principal === null ? `HTTP@${new URL(origin).hostname}` : gssServiceName(principal);
    return new SpnegoTransport(transport, { token: kerberosToken(service, krb) });
  };
}
