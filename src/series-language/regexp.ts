// Pure: the `regexp` tag-value filter's engine: re2js (RE2, linear time) in place of java.util.regex;
// Java syntax RE2 lacks or reads differently is refused with a 400.
// Design notes: docs/DECISIONS.md#the-regexp-engine
import { RE2JS } from 're2js';

/** A pattern the engine refuses, and why (the caller names the pattern in its own error). */
export interface Refused {
  readonly refused: string;
}

function refuse(why: string): Refused {
  return { refused: why };
}

const HEX4 = /^[0-9A-Fa-f]{4}$/;

/** Java's pattern → the same pattern in RE2's syntax, or Refused where the two differ. */
export function javaToRe2(pattern: string): string | Refused {
  let out = '';
  let inClass = false;
  /** index of the class's first member (a `]` there is a literal, in both engines) */
  let classStart = -1;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === '\\') {
      const n = pattern[i + 1];
      if (n === undefined) return refuse('a trailing backslash');
      if (n === 'Q') {
        const end = pattern.indexOf('\\E', i + 2);
        const stop = end < 0 ? pattern.length : end + 2;
        out += pattern.slice(i, stop);
        i = stop - 1;
        continue;
      }
      if (n === 'u') {
        const hex = pattern.slice(i + 2, i + 6);
        if (!HEX4.test(hex)) return refuse('`\\u` without four hex digits');
        out += `\\x{${hex}}`;
        i += 5;
        continue;
      }
      if (n === '0') return refuse('an octal escape `\\0…` (RE2 reads octal differently)');
      if (n === 'v') return refuse('`\\v` (Java: any vertical whitespace; RE2: the vertical tab only)');
      out += c + n;
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']' && i !== classStart) inClass = false;
      else if (c === '[') return refuse('a `[` inside a character class (Java: a nested class or union; RE2: a POSIX class or a literal)');
      else if (c === '&' && pattern[i + 1] === '&') return refuse('`&&` inside a character class (Java: an intersection; RE2: literal ampersands)');
      out += c;
      continue;
    }
    if (c === '[') {
      inClass = true;
      classStart = pattern[i + 1] === '^' ? i + 2 : i + 1;
    }
    out += c;
  }
  return out;
}

/** What the pattern matches: `find` (unanchored, as Java's Matcher.find()). */
export interface CompiledRegexp {
  find(value: string): boolean;
}

/** Distinct values whose answer one compiled filter remembers (many series share a tag value). */
const MEMO_VALUES = 4096;

/** The compiled pattern, or Refused: syntax RE2 does not take, or takes with another meaning. */
export function compileRegexp(pattern: string): CompiledRegexp | Refused {
  const translated = javaToRe2(pattern);
  if (typeof translated !== 'string') return translated;
  let re: RE2JS;
  try {
    re = RE2JS.compile(translated);
  } catch (err) {
    return refuse(err instanceof Error ? err.message : String(err));
  }
  const memo = new Map<string, boolean>();
  return {
    find(value) {
      const known = memo.get(value);
      if (known !== undefined) return known;
      const found = re.test(value);
      if (memo.size < MEMO_VALUES) memo.set(value, found);
      return found;
    },
  };
}
