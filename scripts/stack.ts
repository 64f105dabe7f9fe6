// npm run stack:up | stack:down [-- --purge] | stack:status
// The Docker-free local stack: HBase 2.6 standalone + REST gateway and Kafka 3.9 KRaft, fetched from
// Maven Central, bound to 127.0.0.1, data and logs under .stack/.
import { stackDown, stackStatus, stackUp } from './lib/stack/local-stack.ts';

const log = (m: string): void => {
  process.stdout.write(`[stack] ${m}\n`);
};

async function main(cmd: string | undefined, args: string[]): Promise<number> {
  switch (cmd) {
    case 'up': {
      const t0 = Date.now();
      const ep = await stackUp(log);
      log(`up in ${((Date.now() - t0) / 1000).toFixed(1)}s — REST ${ep.restUrl}, Kafka ${ep.kafkaBrokers}, ZooKeeper ${ep.zkQuorum}`);
      return 0;
    }
    case 'down':
      await stackDown(log, { purge: args.includes('--purge') });
      return 0;
    case 'status': {
      const { services, versions, layout } = await stackStatus();
      log(`HBase ${versions.hbase} (REST ${versions.hbaseRest}), Kafka ${versions.kafka}; data ${layout.dataDir}`);
      for (const s of services) {
        const state = s.ready ? 'ready' : s.running ? 'running, NOT answering' : 'stopped';
        log(`${s.name.padEnd(6)} ${state.padEnd(22)} port 127.0.0.1:${s.port}${s.pid === undefined ? '' : `  pid ${s.pid}`}`);
      }
      return services.every((s) => s.ready) ? 0 : 3;
    }
    default:
      process.stderr.write('usage: node scripts/stack.ts up | down [--purge] | status\n');
      return 2;
  }
}

main(process.argv[2], process.argv.slice(3)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`[stack] error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
