// `--produce TOPIC`: the data set's events onto our service's Kafka topic (key = id, value = the
// event as JSON, as the demo producer sends them), so a service consuming that topic holds the same
// points as the TSD. Its arrival is then checked through our /api/query (tsd-session.ts waitForAll).
import { Kafka, logLevel } from 'kafkajs';
import type { CompatEvent } from './dataset.ts';

export async function produceEvents(brokers: string, topic: string, events: readonly CompatEvent[], say: (m: string) => void): Promise<void> {
  const kafka = new Kafka({ clientId: 'compat-opentsdb', brokers: brokers.split(','), logLevel: logLevel.NOTHING });
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  try {
    const t0 = performance.now();
    for (let i = 0; i < events.length; i += 2000) {
      const messages = events.slice(i, i + 2000).map((e) => ({ key: e.id, value: JSON.stringify(e) }));
      await producer.send({ topic, acks: -1, messages });
    }
    say(`produced ${events.length} events to ${topic} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  } finally {
    await producer.disconnect();
  }
}
