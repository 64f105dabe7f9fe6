// HBase's own REST gateway with Kerberos (SPNEGO) authentication, in front of the local stack's
// cluster, which stays insecure. RESTServer installs its AuthFilter (Hadoop's AuthenticationFilter
// with the Kerberos handler, `hbase.rest.authentication.*`) only when both Hadoop and HBase security
// are on in ITS configuration (RESTServer.loginServerPrincipal, HBase 2.6): hadoop.security.authentication
// =kerberos (core-site.xml: UserGroupInformation reads it there) and hbase.security.authentication=
// kerberos. The gateway then logs in from its keytab and talks Kerberos SASL to the cluster, whose
// insecure RPC server answers SWITCH_TO_SIMPLE_AUTH; hbase.ipc.client.fallback-to-simple-auth-allowed
// lets the gateway take that, and the cluster's principal (hbase/localhost) exists in the KDC so the
// gateway can get the ticket its first SASL message carries. Requests run as the authenticated user
// (a proxy user of the gateway); the cluster does no authorization.
import type { Kdc } from './kdc.ts';
import { startRestGateway, type RestGateway } from './rest-gateway.ts';

export interface KerberosGatewayOptions {
  readonly kdc: Kdc;
  readonly dir: string;
  /** lifetime of the gateway's hadoop.auth cookie, s (hbase.rest.authentication.token.validity; Hadoop's default 36000) */
  readonly cookieValiditySec?: number;
}

export interface KerberosGateway extends RestGateway {
  /** the gateway's SPNEGO principal, HTTP/localhost@REALM: clients ask for HTTP@localhost */
  readonly httpPrincipal: string;
}

/** 401 with WWW-Authenticate: Negotiate to a request without credentials: the AuthFilter is on. */
export async function asksToNegotiate(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/version/cluster`, { signal: AbortSignal.timeout(3000) });
    await res.arrayBuffer();
    return res.status === 401 && res.headers.get('www-authenticate') === 'Negotiate';
  } catch {
    return false;
  }
}

export async function startKerberosGateway(o: KerberosGatewayOptions): Promise<KerberosGateway> {
  const { kdc } = o;
  const httpPrincipal = `HTTP/localhost@${kdc.realm}`;
  const keytab = kdc.addPrincipal('HTTP/localhost');
  const cluster = `hbase/localhost@${kdc.realm}`;
  kdc.addPrincipal('hbase/localhost');
  const gw = await startRestGateway({
    dir: o.dir,
    coreSite: { 'hadoop.security.authentication': 'kerberos' },
    site: {
      'hbase.security.authentication': 'kerberos',
      'hbase.rest.keytab.file': keytab,
      'hbase.rest.kerberos.principal': httpPrincipal,
      'hbase.rest.authentication.type': 'kerberos',
      'hbase.rest.authentication.kerberos.principal': httpPrincipal,
      'hbase.rest.authentication.kerberos.keytab': keytab,
      ...(o.cookieValiditySec === undefined ? {} : { 'hbase.rest.authentication.token.validity': String(o.cookieValiditySec) }),
      'hbase.ipc.client.fallback-to-simple-auth-allowed': 'true',
      'hbase.master.kerberos.principal': cluster,
      'hbase.regionserver.kerberos.principal': cluster,
    },
    jvmProps: [`-Djava.security.krb5.conf=${kdc.krb5Conf}`, '-Dzookeeper.sasl.client=false'],
    env: { ...kdc.env },
    ready: asksToNegotiate,
    startTimeoutMs: 90_000,
  });
  return { ...gw, httpPrincipal };
}
