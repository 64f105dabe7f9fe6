// npm start — the main job. With no cluster configured (no TSI_KAFKA_BROKERS / TSI_HBASE_REST_URL /
// TSI_CONFIG) it brings up the embedded local stack, creates the pre-split tables and topics,
// produces generated events (plus a few bad ones), runs the real ingest service until they are all
// written or dead-lettered, prints what it wrote and exits. `--serve` keeps the service running.
// With a cluster configured it runs the service (same as `tsingest run`). The demo's configuration is
// config/local.json, so the README's query examples (`--config config/local.json`) read its data.
// The service's log lines go to a file (scripts/lib/demo/demo-log.ts), whose path the demo prints.
import { parseArgs } from 'node:util';
import { Kafka, logLevel } from 'kafkajs';
import { stackUp } from './lib/stack/local-stack.ts';
import { loadConfig } from '../src/runtime/index.ts';
import { main as cli } from '../src/cli.ts';
import { runDemo } from './lib/demo/demo.ts';
import { DEMO_COMMAND_SETS, demoLogFile, demoLogger } from './lib/demo/demo-log.ts';
import { stackLayout } from './lib/stack/config.ts';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '20000' },
    live: { type: 'string', default: '10000' },
    serve: { type: 'boolean', default: false },
    set: { type: 'string', multiple: true },
  },
});
const say = (m: string): void => {
  process.stdout.write(`[start] ${m}\n`);
};
const DEMO_CONFIG = 'config/local.json';

async function main(): Promise<number> {
  const env = process.env;
  const configured = [env['TSI_KAFKA_BROKERS'], env['TSI_HBASE_REST_URL'], env['TSI_CONFIG']].some((v) => v !== undefined && v !== '');
  if (configured) return cli(['run', ...(values.set ?? []).flatMap((s) => ['--set', s])]);

  say('no cluster configured: starting the embedded local stack (HBase + REST + Kafka)');
  const ep = await stackUp(say);
  // The local stack's endpoints (its ports can be moved with TSI_STACK_*_PORT) win over the file.
  const stackSets = [`kafka.brokers=${ep.kafkaBrokers}`, `hbase.restUrl=${ep.restUrl}`, `hbase.adminCommand=${JSON.stringify(ep.adminCommand)}`];
  const sets = [...stackSets, ...(values.set ?? [])];
  const cfg = loadConfig({ file: DEMO_CONFIG, env, sets: [...sets, ...(values.serve ? [] : ['http.port=0'])] });
  const logFile = demoLogFile(stackLayout().logDir);
  say(`configuration: ${DEMO_CONFIG}; the service's log (JSON lines, kafkajs's among them): ${logFile}`);
  say('creating the pre-split tables (data, index, rollup)');
  const cliArgs = ['--config', DEMO_CONFIG, ...[...stackSets, ...DEMO_COMMAND_SETS, ...(values.set ?? [])].flatMap((s) => ['--set', s])];
  const rc = await cli(['tables', 'apply', ...cliArgs]);
  if (rc !== 0) return rc;
  const kafka = new Kafka({ clientId: 'tsingest-demo', brokers: cfg.kafka.brokers, logLevel: logLevel.NOTHING });
  return runDemo({
    cfg,
    kafka,
    events: Number(values.events),
    live: Number(values.live),
    serve: values.serve,
    say,
    log: demoLogger(logFile),
    logFile,
    cli: (argv) => cli([...argv, ...cliArgs]),
  });
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`[start] error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
