// npm run compose -- up|down|secrets [--project NAME]
// Brings docker-compose.yml up the way a user would: the project's images (`npm run images`),
// Kafka + HBase, pre-split tables through table-admin in the hbase container, then topics, the
// ingest service and Prometheus (Grafana's image needs a registry and is left out here; with one,
// `docker-compose --profile app up -d` starts it too). `down` removes everything with its volumes.
// `secrets` only makes the secrets of the service's HTTPS port in ./secrets (scripts/lib/compose-secrets.ts),
// which `up` does too when they are missing; plain `docker-compose up` needs them.
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { DEFAULT_PORTS, composeDown, composeUp } from './lib/compose.ts';
import { ensureComposeSecrets } from './lib/compose-secrets.ts';
import { projectRoot } from './lib/stack-config.ts';

const log = (m: string): void => { process.stdout.write(`[compose] ${m}\n`); };

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({ options: { project: { type: 'string', default: 'tsingest' } }, allowPositionals: true });
  const project = { name: values.project, ports: DEFAULT_PORTS };
  const action = positionals[0];
  if (action === 'up') {
    await composeUp(project, log);
    log(`ingest https://127.0.0.1:${project.ports.http}/metrics (curl --cacert secrets/http-ca.crt -H "Authorization: Bearer $(cat secrets/operator-token)") · Prometheus http://127.0.0.1:${project.ports.prometheus} · REST http://127.0.0.1:${project.ports.rest} · Kafka 127.0.0.1:${project.ports.kafka}`);
    return 0;
  }
  if (action === 'secrets') {
    const made = await ensureComposeSecrets(join(projectRoot, 'secrets'));
    log(made.length === 0 ? 'secrets/http-credentials.json exists: nothing made' : `made in secrets/: ${made.join(', ')}`);
    return 0;
  }
  if (action === 'down') {
    await composeDown(project, log);
    return 0;
  }
  process.stderr.write('usage: npm run compose -- up|down|secrets [--project NAME]\n');
  return 2;
}

main().then(
  (code) => { process.exitCode = code; },
  (err: unknown) => {
    process.stderr.write(`[compose] error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
