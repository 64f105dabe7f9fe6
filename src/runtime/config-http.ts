// The `http` section of the configuration schema (src/runtime/config-schema.ts): the service's own
// port, its TLS, who may use it (src/front-door/) and its concurrency caps.
import { z } from 'zod';

/** 127.0.0.0/8, ::1 and localhost: the addresses only this machine can reach. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || /^::ffff:127\./.test(h);
}

export const httpSchema = z
  .object({
    host: z
      .string()
      .default('127.0.0.1')
      .describe("Address the service's HTTP server binds to; any address but loopback needs http.auth credentials (or http.auth.mode none)"),
    port: z.number().int().min(0).max(65535).default(9464).describe('Port of /healthz, /readyz, /metrics, /ui and the read APIs (0: any free port)'),
    tls: z
      .object({
        certFile: z
          .string()
          .min(1)
          .nullable()
          .default(null)
          .describe("PEM certificate (chain) of the service's port: set it and keyFile to serve HTTPS. Read again when it changes (rotation without restart)"),
        keyFile: z.string().min(1).nullable().default(null).describe('PEM private key of certFile; read again with it'),
        clientCaFile: z
          .string()
          .min(1)
          .nullable()
          .default(null)
          .describe(
            'PEM CA(s) that sign client certificates: a client presenting one is identified by its subject CN (the clients of the credentials); read again when it changes',
          ),
        requireClientCert: z
          .boolean()
          .default(false)
          .describe('Refuse TLS connections without a client certificate signed by clientCaFile (then Bearer and Basic alone are not enough)'),
        reloadCheckMs: z.number().int().min(100).default(10_000).describe('How often (ms) the certificate, key and CA files are checked for a change'),
      })
      .strict()
      .refine((t) => (t.certFile === null) === (t.keyFile === null), { message: 'certFile and keyFile go together', path: ['keyFile'] })
      .refine((t) => t.certFile !== null || (t.clientCaFile === null && !t.requireClientCert), {
        message: 'client certificates need TLS: set certFile and keyFile',
        path: ['clientCaFile'],
      })
      .refine((t) => !t.requireClientCert || t.clientCaFile !== null, { message: 'requireClientCert needs clientCaFile', path: ['requireClientCert'] })
      .prefault({})
      .describe('TLS on the service\'s own port; docs/SECURITY.md, "The service\'s own port"'),
    auth: z
      .object({
        mode: z
          .enum(['auto', 'none'])
          .default('auto')
          .describe(
            'auto: every path but /healthz and /readyz needs a credential with its scope once any is configured; with none configured the port is anonymous (never admin), and the service refuses to start on a non-loopback http.host. none: anonymous on purpose, warned about at every start',
          ),
        credentialsFile: z
          .string()
          .min(1)
          .nullable()
          .default(null)
          .describe(
            'JSON file of the hashed credentials (bearer tokens, Basic users, client certificate CNs, each with scopes read, ui, metrics, admin); read again when it changes. docs/SECURITY.md',
          ),
        credentials: z
          .record(z.string(), z.unknown())
          .nullable()
          .default(null)
          .describe('The same document inline (hashes only, never a secret); env TSI_HTTP_CREDENTIALS as JSON'),
      })
      .strict()
      .prefault({})
      .describe("Who may use the service's port, and for what (scopes)"),
    limits: z
      .object({
        maxConcurrentQueries: z
          .number()
          .int()
          .min(1)
          .default(16)
          .describe(
            "Queries (/api/…) in flight over all callers; more wait for a slot (waitMs), then get 429 with Retry-After. Each maximal read page (query.maxLimit items) holds a few MB of heap: 64 of them exhausted the image's 160 MB old space, 16 peaked at 290 MB RSS (docs/SECURITY.md)",
          ),
        maxConcurrentPerIdentity: z
          .number()
          .int()
          .min(1)
          .default(8)
          .describe('Queries (/api/…) in flight for one identity; more wait for a slot (waitMs), then get 429 with Retry-After'),
        waitMs: z
          .number()
          .int()
          .min(0)
          .default(10_000)
          .describe(
            "How long a query over a cap waits for a slot, first come first served (ms); 0: 429 at once. A dashboard's panels arrive together from one identity: a panel past the cap waits for the first to finish instead of failing",
          ),
        maxWaiting: z
          .number()
          .int()
          .min(0)
          .default(64)
          .describe('Queries waiting for a slot at once, over all callers; more get 429 at once (each holds its request, not a read)'),
      })
      .strict()
      .prefault({})
      .describe("Concurrent queries on the service's port"),
  })
  .strict()
  .refine((h) => isLoopback(h.host) || h.auth.mode === 'none' || h.auth.credentialsFile !== null || h.auth.credentials !== null, {
    message:
      'http.host is not loopback and no authentication is configured: set http.auth.credentialsFile (docs/SECURITY.md), or http.auth.mode "none" to serve the data anonymously on purpose',
    path: ['auth', 'mode'],
  })
  .prefault({})
  .describe("The service's own HTTP server (probes, metrics, /ui, the read APIs)");
