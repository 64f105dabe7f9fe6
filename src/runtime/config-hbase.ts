// The `hbase` section of the configuration schema (src/runtime/config-schema.ts): the REST gateways,
// deadlines, retries, TLS and authentication.
import { z } from 'zod';

export const hbaseSchema = z
  .object({
    restUrl: z.url().default('http://127.0.0.1:8080').describe('Base URL of the HBase REST gateway (the one-gateway form of restUrls)'),
    restUrls: z
      .array(z.url())
      .default([])
      .describe(
        'Base URLs of several REST gateways in front of one cluster (empty: restUrl alone): requests go to the healthy one with the fewest in flight, a gateway whose connections fail leaves the rotation until it answers a probe; all the same scheme and path; hbase.tls and hbase.auth apply to each (docs/ARCHITECTURE.md, *Several REST gateways*). Env: comma-separated',
      ),
    requestDeadlineMs: z.number().int().min(100).default(30_000).describe('Deadline of one REST request (ms)'),
    connections: z.number().int().min(1).max(256).default(16).describe('HTTP connections kept to the REST gateway'),
    putEncoding: z
      .enum(['protobuf', 'json'])
      .default('protobuf')
      .describe('Body format of writes to the REST gateway: protobuf CellSet (no base64, no JSON on either side; BENCHMARKS.md) or JSON'),
    concurrency: z.number().int().min(1).max(256).default(8).describe('REST write requests in flight at once (one queue shared by data and index chunks)'),
    retryBaseMs: z
      .number()
      .int()
      .min(1)
      .default(100)
      .describe('First retry delay after a retriable HBase error (ms); grows exponentially up to retryMaxMs, with full jitter'),
    retryMaxMs: z
      .number()
      .int()
      .min(1)
      .default(5000)
      .describe('Largest retry delay (ms); must be >= hbase.retryBaseMs. A 429 or 503 whose Retry-After asks for longer is waited for, up to 30 s'),
    outageDeadlineMs: z
      .number()
      .int()
      .min(100)
      .default(60_000)
      .describe(
        'When no write has been acknowledged for this long (ms), counted from the oldest unacknowledged write, the service pauses consumption and reports not ready until HBase answers again',
      ),
    adminCommand: z
      .array(z.string())
      .default([])
      .describe('argv that runs the table admin tool (deploy/admin/TableAdmin.java), needed by tables apply; the env variable takes a JSON array'),
    tls: z
      .object({
        caFile: z
          .string()
          .min(1)
          .nullable()
          .default(null)
          .describe(
            "PEM file of the CA(s) that signed the gateway's (or the proxy's) certificate, instead of the system's trust store; the certificate is always verified",
          ),
        certFile: z.string().min(1).nullable().default(null).describe('PEM client certificate for mutual TLS (with keyFile)'),
        keyFile: z.string().min(1).nullable().default(null).describe('PEM private key of certFile'),
        keyPassphraseFile: z.string().min(1).nullable().default(null).describe('File holding the passphrase of an encrypted keyFile'),
        serverName: z
          .string()
          .min(1)
          .nullable()
          .default(null)
          .describe("Name the gateway's certificate must carry (and SNI), when restUrl names it by IP address or by another name"),
      })
      .strict()
      .prefault({})
      .describe('TLS to the REST gateway (an https restUrl); docs/SECURITY.md'),
    auth: z
      .object({
        type: z
          .enum(['none', 'basic', 'bearer', 'spnego'])
          .default('none')
          .describe(
            'Authorization header sent with every request: HTTP Basic (Apache Knox, an authenticating proxy), a Bearer token, or spnego: Kerberos (Authorization: Negotiate) to a gateway with hbase.rest.authentication.type=kerberos, its hadoop.auth cookie reused until it expires; the ticket cache (KRB5CCNAME) or client keytab (KRB5_CLIENT_KTNAME) comes from the environment',
          ),
        username: z.string().min(1).nullable().default(null).describe('Basic auth user'),
        password: z
          .string()
          .min(1)
          .nullable()
          .default(null)
          .describe('Basic auth password; prefer passwordFile or the environment (TSI_HBASE_PASSWORD) to a config file. Never logged'),
        passwordFile: z.string().min(1).nullable().default(null).describe('File holding the Basic auth password (a Kubernetes secret); read at start'),
        token: z.string().min(1).nullable().default(null).describe('Bearer token; prefer tokenFile or the environment (TSI_HBASE_TOKEN). Never logged'),
        tokenFile: z.string().min(1).nullable().default(null).describe('File holding the Bearer token; read again when it changes (rotated tokens)'),
        servicePrincipal: z
          .string()
          .regex(/^[^/@\s]+(@[^/@\s]+|\/[^/@\s]+(@[^/@\s]+)?)$/, 'HTTP@host, HTTP/host or HTTP/host@REALM')
          .nullable()
          .default(null)
          .describe(
            "spnego: the gateway's Kerberos principal, as HTTP@host or HTTP/host@REALM; default HTTP@<host of restUrl>. Set it when restUrl names the gateway by IP address or by an alias",
          ),
      })
      .strict()
      .prefault({})
      .describe('Credentials for the REST gateway or the proxy in front of it; docs/SECURITY.md'),
  })
  .strict()
  .prefault({})
  .describe('HBase REST gateway and writes');
