// I/O for `tsingest whatif --topic T --max N`: the first N records of a topic in record-timestamp
// order over all partitions, of the records there when the command started. Read with a throwaway
// consumer group that commits nothing (the service's group and offsets are untouched); each partition
// is read up to N records or its end, then the records are merged by timestamp.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Config } from '../runtime/config.ts';
import { kafkaClient } from '../service/clients.ts';
import { firstByTime, type TopicRecord } from '../whatif/sample.ts';

export async function readTopic(cfg: Config, log: Logger, topic: string, max: number): Promise<Uint8Array[]> {
  const kafka = kafkaClient(cfg, log);
  const admin = kafka.admin();
  await admin.connect();
  const groupId = `tsingest-whatif-${randomBytes(4).toString('hex')}`;
  try {
    const ends = new Map((await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, { low: Number(p.low), high: Number(p.high) }]));
    const pending = new Set([...ends].filter(([, o]) => o.high > o.low).map(([p]) => p));
    const taken: TopicRecord[] = [];
    if (pending.size === 0) return [];
    const perPartition = new Map<number, number>();
    const consumer = kafka.consumer({ groupId, allowAutoTopicCreation: false });
    await consumer.connect();
    try {
      await consumer.subscribe({ topic, fromBeginning: true });
      await new Promise<void>((resolve, reject) => {
        consumer
          .run({
            autoCommit: false,
            eachBatch: async ({ batch }) => {
              const p = batch.partition;
              const end = ends.get(p)?.high ?? 0;
              for (const m of batch.messages) {
                const n = perPartition.get(p) ?? 0;
                if (Number(m.offset) >= end || n >= max) break;
                perPartition.set(p, n + 1);
                if (m.value !== null) taken.push({ ts: Number(m.timestamp), partition: p, offset: Number(m.offset), value: m.value });
              }
              if (Number(batch.lastOffset()) + 1 >= end || (perPartition.get(p) ?? 0) >= max) pending.delete(p);
              if (pending.size === 0) resolve();
              await Promise.resolve();
            },
          })
          .catch(reject);
      });
    } finally {
      await consumer.disconnect();
    }
    return firstByTime(taken, max);
  } finally {
    await admin.deleteGroups([groupId]).catch(() => undefined);
    await admin.disconnect();
  }
}
