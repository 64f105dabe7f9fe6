// The roles of `tsingest run` (service.role, `--role`, TSI_ROLE; docs/ARCHITECTURE.md, "Roles"): which
// parts of the service one process starts. `ingest` consumes and writes, and runs what lives off the
// writes (the rollup job and its bucket ownership, the spread promoter, the schema doctor, the /ui
// page of its own write heatmap and hot ids); `query` serves the data routes (the read API and the
// series API) and joins no consumer group, runs no job and writes nothing; `all` is both in one
// process. Every role has the HTTP port with its front door, /healthz, /readyz and /metrics.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../runtime/config.ts';
import { SERVICE_ROLES, type ServiceRole } from '../runtime/config-schema.ts';
import type { RouteHandler } from '../runtime/http.ts';

export { SERVICE_ROLES, type ServiceRole };

export interface RoleParts {
  /** consume the topic and write it: the ingest consumer group, the DLQ producer, the outage watch, the lag monitor, the region writes, the hot ids */
  readonly ingest: boolean;
  /** the rollup job and its bucket ownership (the rollup-owners consumer group), when rollup.enabled */
  readonly rollup: boolean;
  /** the spread promoter (publishes this process's load report, promotes), when keys.spread.auto */
  readonly promoter: boolean;
  /** the periodic schema doctor (doctor.everyMs) */
  readonly doctor: boolean;
  /** /ui and /ui/data.json: this process's write heatmap and hot ids, and the doctor's findings */
  readonly ui: boolean;
  /** the data routes: the read API (/api/v1/…) and the series API (/api/query, /api/suggest, …) */
  readonly reads: boolean;
  /** may write to HBase; without it a read never repairs a dangling index row, whatever query.repairDangling says */
  readonly writes: boolean;
}

const INGEST: RoleParts = { ingest: true, rollup: true, promoter: true, doctor: true, ui: true, reads: false, writes: true };
const QUERY: RoleParts = { ingest: false, rollup: false, promoter: false, doctor: false, ui: false, reads: true, writes: false };
const ALL: RoleParts = { ingest: true, rollup: true, promoter: true, doctor: true, ui: true, reads: true, writes: true };

export const ROLE_PARTS: Readonly<Record<ServiceRole, RoleParts>> = { ingest: INGEST, query: QUERY, all: ALL };

export function partsOf(role: ServiceRole): RoleParts {
  return ROLE_PARTS[role];
}

export function isServiceRole(raw: string): raw is ServiceRole {
  return (SERVICE_ROLES as readonly string[]).includes(raw);
}

/** Whether the process talks to Kafka at all: its ingest group, or the rollup job's ownership group. */
export function usesKafka(parts: RoleParts, cfg: Pick<Config, 'rollup'>): boolean {
  return parts.ingest || (parts.rollup && cfg.rollup.enabled && cfg.rollup.owners.mode === 'kafka');
}

/** The configuration a role's read side works with: a process that writes nothing repairs nothing. */
export function readConfig(cfg: Config, parts: RoleParts): Config {
  return parts.writes || !cfg.query.repairDangling ? cfg : { ...cfg, query: { ...cfg.query, repairDangling: false } };
}

const DATA_PREFIX = '/api/';
const UI_PREFIX = '/ui';

/** Which role serves `pathname` when this one does not: the data routes, /ui, or none of them (undefined). */
export function absentPart(parts: RoleParts, pathname: string): { readonly what: string; readonly servedBy: ServiceRole } | undefined {
  if (!parts.reads && pathname.startsWith(DATA_PREFIX)) return { what: 'the read API and the series API', servedBy: 'query' };
  if (!parts.ui && (pathname === UI_PREFIX || pathname.startsWith(`${UI_PREFIX}/`))) return { what: '/ui', servedBy: 'ingest' };
  return undefined;
}

/**
 * The routes of the parts a role does not run: 404, as any unknown path, with a body that says
 * which role serves them (the probes and /metrics never reach it: the HTTP server answers them first).
 */
export function absentRoutes(role: ServiceRole): RouteHandler {
  const parts = partsOf(role);
  return (_req: IncomingMessage, res: ServerResponse, url: URL) => {
    const absent = absentPart(parts, url.pathname);
    if (absent === undefined) return Promise.resolve(false);
    const body = JSON.stringify({
      status: 'not_found',
      path: url.pathname,
      reason: `this process runs the ${role} role; the ${absent.servedBy} role serves ${absent.what} (service.role)`,
    });
    res.writeHead(404, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' });
    res.end(body);
    return Promise.resolve(true);
  };
}
