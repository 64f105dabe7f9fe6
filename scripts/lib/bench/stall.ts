// Memory with HBase stalled: the service (its own process) consumes a topic that a producer fills at
// a steady rate; after a lead-in the REST gateway of the local stack is frozen (SIGSTOP) for
// `stallSeconds`, then resumed (SIGCONT, always, in a finally). The service's RSS is sampled all
// along; at the end every produced event must be in the data table (counted by a scan).
import type { Kafka, Message } from 'kafkajs';
import { CompressionTypes } from 'kafkajs';
import type { HBaseRestClient } from '../../../src/hbase/index.ts';
import { generateEvents } from '../../../src/demo/index.ts';
import { startServiceChild } from './child.ts';
import { requireStackPid } from '../stack/config.ts';

export interface StallResult {
  readonly rate: number;
  readonly stallSeconds: number;
  readonly produced: number;
  readonly rowsCounted: number;
  readonly peakRssBytes: number;
  readonly hwmBytes: number;
  readonly recoverSeconds: number;
}

async function countRows(rest: HBaseRestClient, table: string): Promise<number> {
  let n = 0;
  for await (const row of rest.scan(table, { batch: 5000 })) if (row.row.length > 0) n++;
  return n;
}

export async function runStall(o: {
  env: NodeJS.ProcessEnv;
  sets: readonly string[];
  port: number;
  kafka: Kafka;
  topic: string;
  dataTable: string;
  rest: HBaseRestClient;
  rate: number;
  stallSeconds: number;
  leadSeconds: number;
  ids: number;
  say: (m: string) => void;
}): Promise<StallResult> {
  const pid = requireStackPid('rest'); // the stall phase needs the local stack
  const child = await startServiceChild({ env: o.env, sets: o.sets, port: o.port, say: o.say });
  const producer = o.kafka.producer();
  await producer.connect();
  let frozen = false;
  const thaw = (): void => {
    if (frozen) process.kill(pid, 'SIGCONT');
    frozen = false;
  };
  try {
    const total = Math.round(o.rate * (o.leadSeconds * 2 + o.stallSeconds));
    const gen = generateEvents({ count: total, ids: o.ids, startTs: Date.now() - total, stepMs: 1, seed: 99 });
    const t0 = performance.now();
    let sent = 0;
    let stallEnd = Infinity;
    while (sent < total) {
      const elapsed = (performance.now() - t0) / 1000;
      if (!frozen && stallEnd === Infinity && elapsed >= o.leadSeconds) {
        process.kill(pid, 'SIGSTOP');
        frozen = true;
        stallEnd = elapsed + o.stallSeconds;
        o.say(`stall: REST gateway (pid ${pid}) frozen for ${o.stallSeconds} s; service RSS ${(child.peak().sampled / 2 ** 20).toFixed(0)} MiB so far`);
      }
      if (frozen && elapsed >= stallEnd) {
        thaw();
        o.say(`stall: REST gateway resumed; service RSS peak ${(child.peak().sampled / 2 ** 20).toFixed(0)} MiB`);
      }
      const due = Math.min(total, Math.floor(elapsed * o.rate));
      const messages: Message[] = [];
      while (sent + messages.length < due) {
        const next = gen.next();
        if (next.done === true) break;
        messages.push({ key: next.value.id, value: JSON.stringify(next.value) });
      }
      if (messages.length > 0) await producer.send({ topic: o.topic, acks: -1, compression: CompressionTypes.None, messages });
      sent += messages.length;
      await new Promise((r) => setTimeout(r, 20));
    }
    thaw();
    o.say(`stall: produced ${sent} events at ${o.rate}/s; waiting for the service to write them all`);
    const tResume = performance.now();
    const deadline = Date.now() + 900_000;
    while ((await child.written()) < sent) {
      if (Date.now() > deadline) throw new Error('stall: the service did not catch up within 15 min');
      await new Promise((r) => setTimeout(r, 500));
    }
    const recoverSeconds = (performance.now() - tResume) / 1000;
    const peak = child.peak();
    const rowsCounted = await countRows(o.rest, o.dataTable);
    o.say(
      `stall: ${rowsCounted} rows counted by scan for ${sent} events; service RSS peak ${(peak.sampled / 2 ** 20).toFixed(0)} MiB (VmHWM ${(peak.hwm / 2 ** 20).toFixed(0)} MiB)`,
    );
    return { rate: o.rate, stallSeconds: o.stallSeconds, produced: sent, rowsCounted, peakRssBytes: peak.sampled, hwmBytes: peak.hwm, recoverSeconds };
  } finally {
    thaw();
    await producer.disconnect();
    await child.stop();
  }
}
