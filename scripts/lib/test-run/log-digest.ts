// What went wrong inside the stack while a test group ran: the ERROR and WARN lines of a Java
// process's log (log4j2's "<time> LEVEL [thread] logger: message"), told apart by their shape
// (digits, hex ids and thread names folded), counted, most frequent first, each with one line as
// it was. `npm test` prints this under a failed group, since the stack's logs stay on the CI machine.
// Pure: the runner reads the log files.

export interface LogSignature {
  readonly count: number;
  /** the first line of this shape, cut to a readable length */
  readonly example: string;
}

const ENTRY = /^\d{4}-\d{2}-\d{2}T[\d:,.]+\s+(ERROR|WARN)\s+\[[^\]]*\]\s+(.*)$/;
const MAX_EXAMPLE = 300;

function shapeOf(message: string): string {
  return message
    .replace(/0x[0-9a-f]+/gi, 'N')
    .replace(/[0-9a-f]{16,}/gi, 'N')
    .replace(/\d+/g, 'N')
    .slice(0, 120);
}

/** The distinct ERROR/WARN shapes of `text`, most frequent first, at most `limit`. */
export function digestLog(text: string, limit = 12): LogSignature[] {
  const byShape = new Map<string, { count: number; example: string }>();
  for (const line of text.split('\n')) {
    const m = ENTRY.exec(line);
    if (m === null) continue;
    const key = `${m[1] ?? ''} ${shapeOf(m[2] ?? '')}`;
    const seen = byShape.get(key);
    if (seen === undefined) byShape.set(key, { count: 1, example: line.slice(0, MAX_EXAMPLE) });
    else seen.count++;
  }
  return [...byShape.values()].sort((a, b) => b.count - a.count).slice(0, limit);
}
