// Pure: a sample of events from raw record values (file lines or Kafka records), parsed as the
// service parses them; what it would dead-letter is counted and left out.
import type { ParseResult, TsEvent } from '../events/index.ts';

export interface Sample {
  readonly events: TsEvent[];
  readonly rejected: number;
}

export function sampleOf(values: Iterable<Uint8Array>, parse: (raw: Uint8Array) => ParseResult, max = Number.POSITIVE_INFINITY): Sample {
  const events: TsEvent[] = [];
  let rejected = 0;
  for (const raw of values) {
    if (events.length >= max) break;
    const parsed = parse(raw);
    if (parsed.ok) events.push(parsed.event);
    else rejected++;
  }
  return { events, rejected };
}

/** The non-blank lines of a JSON-lines text, as UTF-8 bytes. */
export function* linesOf(text: string): Generator<Uint8Array> {
  for (const line of text.split('\n')) {
    const value = line.replace(/\r$/, '');
    if (value.trim() !== '') yield Buffer.from(value, 'utf8');
  }
}

/** Ids with the most events, most first (ties by id). */
export function topIdsOf(events: readonly Pick<TsEvent, 'id'>[], n: number): [string, number][] {
  const counts = new Map<string, number>();
  for (const e of events) counts.set(e.id, (counts.get(e.id) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, n);
}

/** A record read from a topic: its timestamp, where it is, and its value. */
export interface TopicRecord {
  readonly ts: number;
  readonly partition: number;
  readonly offset: number;
  readonly value: Uint8Array;
}

/** The first `max` records by (timestamp, partition, offset): a topic's sample over all its partitions. */
export function firstByTime(records: readonly TopicRecord[], max: number): Uint8Array[] {
  return [...records]
    .sort((a, b) => a.ts - b.ts || a.partition - b.partition || a.offset - b.offset)
    .slice(0, max)
    .map((r) => r.value);
}
