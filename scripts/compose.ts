// npm run compose -- up [--grafana] | down | ps | logs [SERVICE…] [-f] | produce --file F|- | secrets
// One way in to docker-compose.yml, under one project name (COMPOSE_PROJECT_NAME, default tsingest)
// and on ports that move (TSI_COMPOSE_*_PORT): both from the environment, then `.env`, then the
// defaults; `up` writes what it used to `.env`, which docker-compose reads too, so by-hand
// `docker-compose` commands in this folder reach the same stack (docs/CONTAINERS.md).
//   up       checks every port it publishes, then: the project's images (`npm run images`), Kafka +
//            HBase, pre-split tables through table-admin in the hbase container, topics, the ingest
//            and query services and Prometheus (Grafana with --grafana: its image needs a registry).
//            A failed first `up` removes what it created.
//   down     stops everything and deletes the volumes (the images stay)
//   ps       the containers, then the addresses on the host
//   logs     docker-compose logs (any of its options: -f, --tail N, SERVICE…)
//   produce  tsingest produce against the stack's Kafka (config/compose.json, the moved port)
//   secrets  only makes the secret files docker-compose.yml names, in ./secrets: those of the service's
//            HTTPS port (scripts/lib/images/compose-secrets.ts) and Grafana's admin password, which
//            `up` makes too when they are missing; a by-hand `docker-compose` needs them
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  ComposeRefused,
  GRAFANA_SECRET,
  composeArgv,
  composeDown,
  composeEnv,
  composeUp,
  ensureSecretFiles,
  type ComposeProject,
} from './lib/images/compose.ts';
import { dotEnvValues, parseDotEnv, renderDotEnv, resolvePorts, resolveProject } from './lib/images/compose-ports.ts';
import { projectRoot } from './lib/stack/config.ts';

const USAGE = 'usage: npm run compose -- up [--grafana] | down | ps | logs [SERVICE…] [-f] [--tail N] | produce --file FILE|- [--allow-invalid] | secrets';
const DOT_ENV = join(projectRoot, '.env');
const log = (m: string): void => {
  process.stdout.write(`[compose] ${m}\n`);
};

function addresses(p: ComposeProject): string {
  const g = p.grafana === true ? ` · Grafana http://127.0.0.1:${p.ports.grafana} (admin, password in ${GRAFANA_SECRET})` : '';
  return `ingest https://127.0.0.1:${p.ports.http}/ui · query https://127.0.0.1:${p.ports.query}/api/v1, /api/query (CA secrets/http-ca.crt; curl -H "Authorization: Bearer $(cat secrets/operator-token)") · Prometheus http://127.0.0.1:${p.ports.prometheus} · REST http://127.0.0.1:${p.ports.rest} · Kafka 127.0.0.1:${p.ports.kafka}${g}`;
}

/** Runs a command with the terminal's stdin/stdout/stderr; resolves to its exit code. */
function attached(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const [cmd, ...args] = argv;
  return new Promise((res, rej) => {
    const child = spawn(cmd ?? 'docker-compose', args, { stdio: 'inherit', env, cwd: projectRoot });
    child.on('error', rej);
    child.on('close', (code) => {
      res(code ?? 1);
    });
  });
}

async function main(argv: readonly string[]): Promise<number> {
  const [action, ...rest] = argv;
  // `npm run compose -- up --help`: the usage, not an unknown-option error (logs and produce pass
  // their options on: docker-compose's and tsingest produce's own --help)
  if (action !== 'logs' && action !== 'produce' && (rest.includes('--help') || rest.includes('-h'))) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const dotEnvText = existsSync(DOT_ENV) ? readFileSync(DOT_ENV, 'utf8') : '';
  const dotEnv = parseDotEnv(dotEnvText);
  const project: ComposeProject = { name: resolveProject(process.env, dotEnv), ports: resolvePorts(process.env, dotEnv) };
  switch (action) {
    case 'up': {
      const { values } = parseArgs({ args: rest, options: { grafana: { type: 'boolean' } } });
      const p = { ...project, grafana: values.grafana === true };
      writeFileSync(DOT_ENV, renderDotEnv(dotEnvText, dotEnvValues(p.name, p.ports)));
      log(`project ${p.name}, ports in ${DOT_ENV}`);
      await composeUp(p, log);
      log(addresses(p));
      return 0;
    }
    case 'down':
      parseArgs({ args: rest, options: {} });
      await composeDown(project, log);
      return 0;
    case 'ps': {
      parseArgs({ args: rest, options: {} });
      const code = await attached(composeArgv(project, '--profile', 'app', '--profile', 'grafana', 'ps'), composeEnv(project));
      log(addresses(project));
      return code;
    }
    case 'logs':
      return attached(composeArgv(project, '--profile', 'app', '--profile', 'grafana', 'logs', ...rest), composeEnv(project));
    case 'produce':
      return attached([process.execPath, '--disable-warning=TimeoutNegativeWarning', 'src/cli.ts', 'produce', '--config', 'config/compose.json', ...rest], {
        ...process.env,
        TSI_KAFKA_BROKERS: `127.0.0.1:${project.ports.kafka}`,
      });
    case 'secrets': {
      parseArgs({ args: rest, options: {} });
      // every secret file docker-compose.yml names, Grafana's admin password too: a by-hand
      // docker-compose warns of an undefined secret file for any that is missing
      const made = await ensureSecretFiles(join(projectRoot, 'secrets'), log);
      log(made.length === 0 ? 'secrets/http-credentials.json exists: nothing made' : `made in secrets/: ${made.join(', ')}`);
      return 0;
    }
    case '--help':
    case '-h':
    case 'help':
      process.stdout.write(`${USAGE}\n`);
      return 0;
    default:
      process.stderr.write(`${USAGE}\n`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    const refused = err instanceof ComposeRefused;
    process.stderr.write(`[compose] ${refused ? '' : 'error: '}${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = refused ? 3 : 1;
  },
);
