// Pure: a parser for the small YAML subset the project's provisioning files and k8s manifests use (no
// YAML package is a dependency): block mappings and block sequences by indentation, `- key: value`
// items, comments, plain, 'single'- or "double"-quoted scalars (true/false, null/~, integers and
// decimals typed) and one-line flow sequences of such scalars (`[ALL]`, `["sleep", "5"]`). Anything
// else (flow mappings, nested flow sequences, anchors, multi-line scalars, tabs) is an error, never a guess.

export type Yaml = string | number | boolean | null | Yaml[] | { [key: string]: Yaml };

interface Line {
  readonly indent: number;
  readonly text: string;
  readonly no: number;
}

function fail(line: Line | undefined, message: string): never {
  throw new SyntaxError(`yaml line ${line?.no ?? 'end'}: ${message}${line === undefined ? '' : ` (${line.text})`}`);
}

/** Removes a comment: `#` at the start or after a space, outside quotes. */
function stripComment(text: string): string {
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote !== null) {
      if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#' && (i === 0 || text[i - 1] === ' ')) return text.slice(0, i).trimEnd();
  }
  return text.trimEnd();
}

/** `[a, "b, c", 'd']`: the items of a one-line flow sequence of scalars (commas inside quotes kept). */
function flowSequence(s: string, line: Line): Yaml[] {
  const inner = s.slice(1, -1).trim();
  if (inner === '') return [];
  const items: string[] = [];
  let quote: string | null = null;
  let start = 0;
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i];
    if (quote !== null) {
      if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === ',') {
      items.push(inner.slice(start, i));
      start = i + 1;
    }
  }
  items.push(inner.slice(start));
  return items.map((item) => {
    if (/^\s*[[{]/.test(item)) fail(line, 'nested flow collections are not supported');
    return scalar(item, line);
  });
}

function scalar(raw: string, line: Line): Yaml {
  const s = raw.trim();
  if (s.startsWith('[') && s.endsWith(']')) return flowSequence(s, line);
  if (s.startsWith('"')) {
    if (!s.endsWith('"') || s.length < 2) fail(line, 'unterminated "string"');
    return JSON.parse(s) as string;
  }
  if (s.startsWith("'")) {
    if (!s.endsWith("'") || s.length < 2) fail(line, "unterminated 'string'");
    return s.slice(1, -1).replaceAll("''", "'");
  }
  if (/^[[{&*!|>]/.test(s)) fail(line, 'flow collections, anchors, tags and block scalars are not supported');
  if (s === 'true' || s === 'false') return s === 'true';
  if (s === 'null' || s === '~' || s === '') return null;
  if (/^[-+]?\d+(\.\d+)?$/.test(s)) return Number(s);
  return s;
}

const KEY = /^("[^"]*"|'[^']*'|[^\s"'#:][^:]*?)\s*:(?:\s+(.*))?$/;

function parseBlock(lines: Line[], i: number, indent: number): [Yaml, number] {
  const first = lines[i];
  if (first === undefined) return [null, i];
  return first.text === '-' || first.text.startsWith('- ') ? parseSeq(lines, i, indent) : parseMap(lines, i, indent);
}

function parseMap(lines: Line[], start: number, indent: number): [Yaml, number] {
  const out: { [key: string]: Yaml } = {};
  let i = start;
  for (let line = lines[i]; line !== undefined && line.indent === indent && !line.text.startsWith('-'); line = lines[i]) {
    const m = KEY.exec(line.text);
    if (m === null) fail(line, 'expected "key: value"');
    const rawKey = m[1] ?? '';
    const key = rawKey.startsWith('"') ? (JSON.parse(rawKey) as string) : rawKey.startsWith("'") ? rawKey.slice(1, -1).replaceAll("''", "'") : rawKey;
    if (key in out) fail(line, `duplicate key ${key}`);
    const rest = m[2];
    i++;
    if (rest !== undefined && rest !== '') {
      out[key] = scalar(rest, line);
      continue;
    }
    const next = lines[i];
    if (next !== undefined && (next.indent > indent || (next.indent === indent && next.text.startsWith('-')))) {
      [out[key], i] = parseBlock(lines, i, next.indent);
    } else {
      out[key] = null;
    }
  }
  const after = lines[i];
  if (after !== undefined && after.indent > indent) fail(after, 'unexpected indentation');
  return [out, i];
}

function parseSeq(lines: Line[], start: number, indent: number): [Yaml, number] {
  const out: Yaml[] = [];
  let i = start;
  for (let line = lines[i]; line !== undefined && line.indent === indent && (line.text === '-' || line.text.startsWith('- ')); line = lines[i]) {
    const rest = line.text.slice(1).trimStart();
    if (rest === '') {
      i++;
      const next = lines[i];
      if (next === undefined || next.indent <= indent) out.push(null);
      else {
        const [v, j] = parseBlock(lines, i, next.indent);
        out.push(v);
        i = j;
      }
    } else if (KEY.test(rest) && !rest.startsWith('"') && !rest.startsWith("'")) {
      // "- key: value": a mapping whose first line starts after the dash
      const inner = indent + (line.text.length - rest.length);
      lines[i] = { indent: inner, text: rest, no: line.no };
      const [v, j] = parseMap(lines, i, inner);
      out.push(v);
      i = j;
    } else {
      out.push(scalar(rest, line));
      i++;
    }
  }
  return [out, i];
}

export function parseYaml(text: string): Yaml {
  const lines: Line[] = [];
  text.split('\n').forEach((raw, n) => {
    if (raw.includes('\t')) fail({ indent: 0, text: raw, no: n + 1 }, 'tabs are not supported');
    const body = stripComment(raw);
    if (body.trim() === '' || body.trim() === '---') return;
    lines.push({ indent: body.length - body.trimStart().length, text: body.trim(), no: n + 1 });
  });
  const first = lines[0];
  if (first === undefined) return null;
  const [value, end] = parseBlock(lines, 0, first.indent);
  if (end < lines.length) fail(lines[end], 'unexpected content');
  return value;
}
