// I/O for `tsingest whatif --topic T --max N`: the oldest records of a topic, read with a throwaway
// consumer group that commits nothing (the service's group and offsets are untouched), up to N records
// or the end of the topic as it was when the command started.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Config } from '../runtime/config.ts';
import { kafkaClient } from '../service/clients.ts';

export async function readTopic(cfg: Config, log: Logger, topic: string, max: number): Promise<Uint8Array[]> {
  const kafka = kafkaClient(cfg, log);
  const admin = kafka.admin();
  await admin.connect();
  const groupId = `tsingest-whatif-${randomBytes(4).toString('hex')}`;
  try {
    const ends = new Map((await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, { low: Number(p.low), high: Number(p.high) }]));
    const pending = new Set([...ends].filter(([, o]) => o.high > o.low).map(([p]) => p));
    const values: Uint8Array[] = [];
    if (pending.size === 0) return values;
    const consumer = kafka.consumer({ groupId, allowAutoTopicCreation: false });
    await consumer.connect();
    try {
      await consumer.subscribe({ topic, fromBeginning: true });
      await new Promise<void>((resolve, reject) => {
        consumer.run({
          autoCommit: false,
          eachBatch: async ({ batch }) => {
            const end = ends.get(batch.partition)?.high ?? 0;
            for (const m of batch.messages) {
              if (Number(m.offset) >= end || values.length >= max) break;
              if (m.value !== null) values.push(m.value);
            }
            if (Number(batch.lastOffset()) + 1 >= end) pending.delete(batch.partition);
            if (values.length >= max || pending.size === 0) resolve();
            await Promise.resolve();
          },
        }).catch(reject);
      });
    } finally {
      await consumer.disconnect();
    }
    return values.slice(0, max);
  } finally {
    await admin.deleteGroups([groupId]).catch(() => undefined);
    await admin.disconnect();
  }
}
