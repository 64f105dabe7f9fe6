// Pure part of `tsingest produce`: a JSON-lines text → Kafka messages keyed by the event id (an id's
// events stay in one partition, in order), or the lines the service would dead-letter, each named by
// its line number and the failing field, so a newcomer's file is fixed before anything is sent.
import { describeReject, type ParseResult } from '../events/index.ts';

export interface LineMessage {
  readonly key: string | null;
  readonly value: string;
}

export interface LinePlan {
  readonly messages: readonly LineMessage[];
  /** lines the service would dead-letter: 1-based line number and why */
  readonly rejects: readonly { readonly line: number; readonly why: string }[];
}

/**
 * Every non-blank line is one message. A line the parser rejects is listed in `rejects`; with
 * `allowInvalid` it is sent anyway (unkeyed), to watch the DLQ at work.
 */
export function planLines(text: string, parse: (raw: Uint8Array) => ParseResult, allowInvalid = false): LinePlan {
  const messages: LineMessage[] = [];
  const rejects: { line: number; why: string }[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const value = (lines[i] ?? '').replace(/\r$/, '');
    if (value.trim() === '') continue;
    const parsed = parse(Buffer.from(value, 'utf8'));
    if (parsed.ok) messages.push({ key: parsed.event.id, value });
    else {
      rejects.push({ line: i + 1, why: describeReject(parsed) });
      if (allowInvalid) messages.push({ key: null, value });
    }
  }
  return { messages, rejects };
}
