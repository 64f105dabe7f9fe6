// npm run compose -- up|down [--project NAME]
// Brings docker-compose.yml up the way a user would: the project's images (`npm run images`),
// Kafka + HBase, pre-split tables through table-admin in the hbase container, then topics, the
// ingest service and Prometheus (Grafana's image needs a registry and is left out here; with one,
// `docker-compose --profile app up -d` starts it too). `down` removes everything with its volumes.
import { parseArgs } from 'node:util';
import { DEFAULT_PORTS, composeDown, composeUp } from './lib/compose.ts';

const log = (m: string): void => { process.stdout.write(`[compose] ${m}\n`); };

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({ options: { project: { type: 'string', default: 'tsingest' } }, allowPositionals: true });
  const project = { name: values.project, ports: DEFAULT_PORTS };
  const action = positionals[0];
  if (action === 'up') {
    await composeUp(project, log);
    log(`ingest http://127.0.0.1:${project.ports.http}/metrics · Prometheus http://127.0.0.1:${project.ports.prometheus} · REST http://127.0.0.1:${project.ports.rest} · Kafka 127.0.0.1:${project.ports.kafka}`);
    return 0;
  }
  if (action === 'down') {
    await composeDown(project, log);
    return 0;
  }
  process.stderr.write('usage: npm run compose -- up|down [--project NAME]\n');
  return 2;
}

main().then(
  (code) => { process.exitCode = code; },
  (err: unknown) => {
    process.stderr.write(`[compose] error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
