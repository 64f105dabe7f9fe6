// Dead-letter queue: a rejected record goes to the DLQ topic with its original key and bytes and
// headers saying why and where it came from. send() resolves only when the broker acknowledged the
// records (acks = all, idempotent producer), so its source offset may then be committed.
import type { Producer } from 'kafkajs';
import type { RejectReason } from '../events/index.ts';
import type { StoredPart } from './batch-plan.ts';

export interface DlqRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly timestamp: string;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly reason: RejectReason;
  readonly field?: string | undefined;
  readonly detail: string;
  /** what of the event is stored in HBase all the same (an index row refused: its data row) */
  readonly stored?: StoredPart | undefined;
}

export const DLQ_HEADERS = {
  reason: 'tsingest-reason',
  field: 'tsingest-field',
  detail: 'tsingest-detail',
  stored: 'tsingest-stored',
  topic: 'tsingest-source-topic',
  partition: 'tsingest-source-partition',
  offset: 'tsingest-source-offset',
  timestamp: 'tsingest-source-timestamp',
} as const;

export interface DlqSink {
  send(records: readonly DlqRecord[]): Promise<void>;
}

export class KafkaDlq implements DlqSink {
  readonly #producer: Producer;
  readonly #topic: string;

  constructor(producer: Producer, topic: string) {
    this.#producer = producer;
    this.#topic = topic;
  }

  async send(records: readonly DlqRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.#producer.send({
      topic: this.#topic,
      acks: -1,
      messages: records.map((r) => ({
        key: r.key,
        value: r.value,
        headers: {
          [DLQ_HEADERS.reason]: r.reason,
          ...(r.field === undefined ? {} : { [DLQ_HEADERS.field]: r.field }),
          [DLQ_HEADERS.detail]: r.detail.slice(0, 1000),
          ...(r.stored === undefined ? {} : { [DLQ_HEADERS.stored]: r.stored }),
          [DLQ_HEADERS.topic]: r.topic,
          [DLQ_HEADERS.partition]: String(r.partition),
          [DLQ_HEADERS.offset]: r.offset,
          [DLQ_HEADERS.timestamp]: r.timestamp,
        },
      })),
    });
  }
}
