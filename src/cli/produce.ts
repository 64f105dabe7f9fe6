// tsingest produce --file events.jsonl — sends JSON events (one per line; `-` reads stdin) to
// kafka.topic with the service's own Kafka client, keyed by id. Every line is checked with the
// service's parser first: a line it would dead-letter stops the command before anything is sent,
// naming the line and the field (`--allow-invalid` sends such lines anyway, to see the DLQ work).
import { rephrase } from '../errors.ts';
import { Partitioners } from 'kafkajs';
import { eventLimitsFor, parseEvent, resolveFieldMapping } from '../events/index.ts';
import { createLogger } from '../runtime/logger.ts';
import { kafkaClient } from '../service/clients.ts';
import { explainKafkaFailure } from '../service/kafka-security.ts';
import { UsageError, configOf, out, parseCommand, readFileFlag, requiredString } from './args.ts';
import { planLines } from './produce-lines.ts';

export const PRODUCE_USAGE = 'tsingest produce --file FILE|- [--allow-invalid]   (JSON events, one per line, to kafka.topic)';

const CHUNK = 1000;
const SHOWN_REJECTS = 20;

export async function produceCommand(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseCommand(argv, { file: { type: 'string' }, 'allow-invalid': { type: 'boolean' } });
  if (positionals.length > 0) throw new UsageError(`usage: ${PRODUCE_USAGE}`);
  const file = requiredString(values, 'file');
  const cfg = configOf(values);
  const allowInvalid = values['allow-invalid'] === true;
  const mapping = resolveFieldMapping(cfg.events.mapping);
  const limits = eventLimitsFor(cfg.events);
  const plan = planLines(readFileFlag(file), (raw) => parseEvent(raw, mapping, limits()), allowInvalid);
  if (plan.rejects.length > 0) {
    for (const r of plan.rejects.slice(0, SHOWN_REJECTS)) process.stderr.write(`${file}:${r.line}: ${r.why}\n`);
    if (plan.rejects.length > SHOWN_REJECTS) process.stderr.write(`… and ${plan.rejects.length - SHOWN_REJECTS} more\n`);
    if (!allowInvalid) {
      process.stderr.write(`tsingest: ${plan.rejects.length} line(s) the service would dead-letter; nothing sent (--allow-invalid sends them too)\n`);
      return 1;
    }
  }
  if (plan.messages.length === 0) throw new UsageError(`--file ${file}: no events (blank input)`);
  const producer = kafkaClient(cfg, createLogger({ level: 'warn' })).producer({
    idempotent: true,
    maxInFlightRequests: 1,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  try {
    await producer.connect();
  } catch (err) {
    throw rephrase(explainKafkaFailure(cfg.kafka, err) ?? `Kafka at ${cfg.kafka.brokers.join(',')}: ${(err as Error).message}`, err);
  }
  try {
    for (let i = 0; i < plan.messages.length; i += CHUNK) {
      await producer.send({ topic: cfg.kafka.topic, acks: -1, messages: plan.messages.slice(i, i + CHUNK).map((m) => ({ key: m.key, value: m.value })) });
    }
  } finally {
    await producer.disconnect();
  }
  const invalid = allowInvalid ? plan.rejects.length : 0;
  out(
    `produced ${plan.messages.length} event(s) to ${cfg.kafka.topic}${invalid > 0 ? ` (${invalid} of them invalid: expect them in ${cfg.kafka.dlqTopic})` : ''}`,
  );
  return 0;
}
