// The compose project's name and published ports, and what is said when one is taken. Pure: the
// values come from the environment, then the `.env` file beside docker-compose.yml (the file
// docker-compose itself reads, and the one `npm run compose -- up` writes), then the defaults, so
// `npm run compose` and a by-hand `docker-compose` see the same project on the same ports.

/** Each published port, the variable that moves it, its service and its default. */
export const PUBLISHED = {
  kafka: { variable: 'TSI_COMPOSE_KAFKA_PORT', service: 'kafka', what: 'Kafka', port: 9092 },
  rest: { variable: 'TSI_COMPOSE_REST_PORT', service: 'hbase', what: 'the HBase REST gateway', port: 8080 },
  http: { variable: 'TSI_COMPOSE_HTTP_PORT', service: 'ingest', what: "the ingest service's HTTP", port: 9464 },
  query: { variable: 'TSI_COMPOSE_QUERY_PORT', service: 'query', what: "the query service's HTTP", port: 9465 },
  prometheus: { variable: 'TSI_COMPOSE_PROMETHEUS_PORT', service: 'prometheus', what: 'Prometheus', port: 9090 },
  grafana: { variable: 'TSI_COMPOSE_GRAFANA_PORT', service: 'grafana', what: 'Grafana', port: 3000 },
} as const;

export type PortName = keyof typeof PUBLISHED;
export type ComposePorts = Readonly<Record<PortName, number>>;

export const PORT_NAMES = Object.keys(PUBLISHED) as readonly PortName[];
export const DEFAULT_PORTS: ComposePorts = portsOf((n) => PUBLISHED[n].port);
export const DEFAULT_PROJECT = 'tsingest';
export const PROJECT_VARIABLE = 'COMPOSE_PROJECT_NAME';

type Vars = Readonly<Record<string, string | undefined>>;

function portsOf(f: (n: PortName) => number): ComposePorts {
  return { kafka: f('kafka'), rest: f('rest'), http: f('http'), query: f('query'), prometheus: f('prometheus'), grafana: f('grafana') };
}

/** KEY=value lines of a `.env` file (comments, blank lines and `export ` tolerated; quotes removed). */
export function parseDotEnv(text: string): Map<string, string> {
  const vars = new Map<string, string>();
  for (const raw of text.split(/\r?\n/)) {
    const m = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(raw);
    if (m?.[1] === undefined || m[2] === undefined) continue;
    vars.set(m[1], m[2].replace(/^(['"])(.*)\1$/, '$2'));
  }
  return vars;
}

/** The `.env` text with `values` set: existing lines of those keys rewritten in place, new ones appended, the rest kept. */
export function renderDotEnv(existing: string, values: ReadonlyMap<string, string>): string {
  const left = new Map(values);
  const lines =
    existing === ''
      ? []
      : existing
          .replace(/\n$/, '')
          .split('\n')
          .map((line) => {
            const key = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=/.exec(line)?.[1];
            const value = key === undefined ? undefined : left.get(key);
            if (key === undefined || value === undefined) return line;
            left.delete(key);
            return `${key}=${value}`;
          });
  if (left.size > 0 && lines.length === 0) lines.push('# Written by `npm run compose -- up`: docker-compose reads it too (docs/CONTAINERS.md).');
  for (const [key, value] of left) lines.push(`${key}=${value}`);
  return `${lines.join('\n')}\n`;
}

/** env, then `.env`, then the default; a value that is not a port, or two services on one port, is an error naming the variables. */
export function resolvePorts(env: Vars, dotEnv: ReadonlyMap<string, string>): ComposePorts {
  const ports = portsOf((n) => {
    const { variable, port } = PUBLISHED[n];
    const raw = env[variable] ?? dotEnv.get(variable);
    if (raw === undefined || raw === '') return port;
    const v = Number(raw);
    if (!/^\d+$/.test(raw) || v < 1 || v > 65535) throw new Error(`${variable}=${raw} is not a port number (1–65535)`);
    return v;
  });
  for (const a of PORT_NAMES) {
    const b = PORT_NAMES.find((o) => o !== a && ports[o] === ports[a]);
    if (b !== undefined && PORT_NAMES.indexOf(a) < PORT_NAMES.indexOf(b)) {
      throw new Error(`${PUBLISHED[a].variable} and ${PUBLISHED[b].variable} are both ${ports[a]}: give each its own port`);
    }
  }
  return ports;
}

export function resolveProject(env: Vars, dotEnv: ReadonlyMap<string, string>): string {
  const name = env[PROJECT_VARIABLE] ?? dotEnv.get(PROJECT_VARIABLE) ?? DEFAULT_PROJECT;
  if (!/^[a-z0-9][a-z0-9_-]*$/.test(name)) throw new Error(`${PROJECT_VARIABLE}=${name}: a compose project name is lower-case letters, digits, "-" and "_"`);
  return name;
}

/** The variables `up` writes to `.env`, for by-hand docker-compose commands to agree with it. */
export function dotEnvValues(project: string, ports: ComposePorts): Map<string, string> {
  return new Map([[PROJECT_VARIABLE, project], ...PORT_NAMES.map((n): [string, string] => [PUBLISHED[n].variable, String(ports[n])])]);
}

/**
 * The host ports the project's own running containers already publish, from lines of
 * `docker ps --format '{{.Ports}}'` ("127.0.0.1:9092->9092/tcp, …"): those are taken by the stack
 * itself, not by something else, when `up` is run again.
 */
export function publishedHostPorts(psLines: string): Set<number> {
  const ports = new Set<number>();
  for (const m of psLines.matchAll(/:(\d+)->\d+\/tcp/g)) ports.add(Number(m[1]));
  return ports;
}

/** The published ports `up` must find free: those of the services it starts, less those the project already holds. */
export function portsToCheck(ports: ComposePorts, names: readonly PortName[], own: ReadonlySet<number>): PortName[] {
  return names.filter((n) => !own.has(ports[n]));
}

/** The published ports docker-compose's output says it could not bind (taken after the check). */
export function portsRefusedBy(output: string, ports: ComposePorts): PortName[] {
  const refused = new Set([...output.matchAll(/127\.0\.0\.1:(\d+): bind: address already in use/g)].map((m) => Number(m[1])));
  return PORT_NAMES.filter((n) => refused.has(ports[n]));
}

/** Where the search for a free port to suggest starts: 10000 above the taken one, or below it near the top of the range. */
function firstCandidate(port: number): number {
  return port + 10_000 > 65535 ? port - 1 : port + 10_000;
}

/**
 * For each taken port, a port to suggest in its place that `isFree` found free just now: from
 * port + 10000 (below the port near 65535) on, never one of the stack's other ports nor one already
 * suggested; at most `tries` checks per port (a port with none found has no suggestion).
 */
export async function suggestFreePorts(
  ports: ComposePorts,
  taken: readonly PortName[],
  isFree: (port: number) => Promise<boolean>,
  tries = 20,
): Promise<Partial<Record<PortName, number>>> {
  const out: Partial<Record<PortName, number>> = {};
  const used = new Set(PORT_NAMES.map((n) => ports[n]));
  for (const n of taken) {
    const start = firstCandidate(ports[n]);
    const step = start > ports[n] ? 1 : -1;
    for (let i = 0, c = start; i < tries && c >= 1 && c <= 65535; i++, c += step) {
      if (used.has(c) || !(await isFree(c))) continue;
      out[n] = c;
      used.add(c);
      break;
    }
  }
  return out;
}

/**
 * What `up` says when ports are taken: each port, what it is for and the variable that moves it, and
 * a command line with the ports `suggested` (suggestFreePorts: checked free when the message was made).
 * `before`: found by the check, nothing started; `during`: taken while `up` was starting, what it had started removed.
 */
export function clashMessage(
  ports: ComposePorts,
  taken: readonly PortName[],
  suggested: Partial<Record<PortName, number>>,
  when: 'before' | 'during' = 'before',
): string {
  const lines = taken.map(
    (n) => `  127.0.0.1:${ports[n]} (${PUBLISHED[n].what}, service ${PUBLISHED[n].service}) is taken: move it with ${PUBLISHED[n].variable}`,
  );
  const example = taken.map((n) => `${PUBLISHED[n].variable}=${suggested[n] === undefined ? '<a free port>' : String(suggested[n])}`).join(' ');
  const allFree = taken.every((n) => suggested[n] !== undefined);
  const many = taken.length > 1;
  const head = `${many ? `${taken.length} ports` : 'a port'} of the compose stack ${many ? 'are' : 'is'} in use by something else`;
  return [
    when === 'before' ? `${head}; nothing was started:` : `${head} (taken while up was starting); what up had started is removed:`,
    ...lines,
    `  e.g. ${example} npm run compose -- up   (${allFree ? `${many ? 'these ports were' : 'this port was'} free just now; ` : ''}the ports are kept in .env for the next commands)`,
  ].join('\n');
}
