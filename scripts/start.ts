// npm start — the main job. With no cluster configured (no TSI_KAFKA_BROKERS / TSI_HBASE_REST_URL /
// TSI_CONFIG) it brings up the embedded local stack, creates the pre-split tables and topics,
// produces generated events (plus a few bad ones), runs the real ingest service until they are all
// written or dead-lettered, prints what it wrote and exits. `--serve` keeps the service running.
// With a cluster configured it runs the service (same as `tsingest run`).
import { parseArgs } from 'node:util';
import { Kafka, logLevel } from 'kafkajs';
import { stackUp } from './lib/local-stack.ts';
import { loadConfig } from '../src/runtime/config.ts';
import { createLogger } from '../src/runtime/logger.ts';
import { main as cli } from '../src/cli.ts';
import { runDemo } from './lib/demo.ts';

const { values } = parseArgs({ options: { events: { type: 'string', default: '20000' }, serve: { type: 'boolean', default: false }, set: { type: 'string', multiple: true } } });
const say = (m: string): void => { process.stdout.write(`[start] ${m}\n`); };

async function main(): Promise<number> {
  const env = process.env;
  const configured = [env['TSI_KAFKA_BROKERS'], env['TSI_HBASE_REST_URL'], env['TSI_CONFIG']].some((v) => v !== undefined && v !== '');
  if (configured) return cli(['run', ...(values.set ?? []).flatMap((s) => ['--set', s])]);

  say('no cluster configured: starting the embedded local stack (HBase + REST + Kafka)');
  const ep = await stackUp(say);
  const cfg = loadConfig({
    env: { ...env, TSI_KAFKA_BROKERS: ep.kafkaBrokers, TSI_HBASE_REST_URL: ep.restUrl, TSI_ADMIN_COMMAND: JSON.stringify(ep.adminCommand) },
    sets: ['index.tags=["site"]', 'http.port=0', 'log.level=warn', ...(values.set ?? [])],
  });
  say('creating the pre-split tables (data, index, rollup)');
  const rc = await cli(['tables', 'apply', '--set', `hbase.adminCommand=${JSON.stringify(ep.adminCommand)}`, '--set', `hbase.restUrl=${ep.restUrl}`]);
  if (rc !== 0) return rc;
  const kafka = new Kafka({ clientId: 'tsingest-demo', brokers: cfg.kafka.brokers, logLevel: logLevel.NOTHING });
  return runDemo({ cfg, kafka, events: Number(values.events), serve: values.serve, say, log: createLogger({ level: cfg.log.level }) });
}

main().then(
  (code) => { process.exitCode = code; },
  (err: unknown) => {
    process.stderr.write(`[start] error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
