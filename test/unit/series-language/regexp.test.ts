// The regexp filter's RE2-class engine: OpenTSDB's semantics (unanchored find, inline flags) where RE2
// has them, a refusal naming the pattern where it has not, and linear time on the catastrophic
// backtracking case that held the event loop (counted as work, not timed: the answer comes back
// while a backtracking engine would still be trying 2^n splits).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildFilter, FilterSpecError, matches } from '../../../src/series-language/filters.ts';
import { compileRegexp, javaToRe2, type CompiledRegexp } from '../../../src/series-language/regexp.ts';

const rx = (filter: string) => buildFilter('regexp', 'host', filter);

test('unanchored find, anchors and inline flags as Java has them', () => {
  assert.equal(matches(rx('web[0-9]+'), 'xx-web01-yy'), true);
  assert.equal(matches(rx('^web[0-9]+$'), 'xx-web01'), false);
  assert.equal(matches(rx('(?i)^WEB'), 'web01'), true);
  assert.equal(matches(rx('a(?i)b'), 'aB'), true);
  assert.equal(matches(rx('a(?i)b'), 'AB'), false);
  assert.equal(matches(rx('(?s)a.b'), 'a\nb'), true);
  assert.equal(matches(rx('a.b'), 'a\nb'), false);
  assert.equal(matches(rx('(?m)^b$'), 'a\nb\nc'), true);
  assert.equal(matches(rx('\\Qa.b\\E'), 'xa.by'), true);
  assert.equal(matches(rx('\\Qa.b\\E'), 'xaxby'), false);
  assert.equal(matches(rx('\\u0041\\x{42}'), 'zAB'), true, 'Java \\uXXXX becomes \\x{XXXX}');
  assert.equal(matches(rx('[\\]a]+$'), 'x]a'), true);
  assert.equal(matches(rx('[]a]+$'), 'x]a'), true);
  assert.equal(matches(rx('\\p{Lu}'), 'abC'), true);
});

test('what RE2 cannot take, or takes with another meaning, is a FilterSpecError naming the pattern', () => {
  for (const p of [
    '(a)\\1',
    'a(?=b)',
    'a(?!b)',
    '(?<=a)b',
    'a*+',
    'a++',
    '(?>a)',
    '\\p{Alpha}',
    'a\\Z',
    '\\G',
    '\\h',
    '\\R',
    'a{1001}',
    '(?x) a',
    '(?u)a',
    '(?d)a',
  ]) {
    assert.throws(
      () => rx(p),
      (e: unknown) => e instanceof FilterSpecError && e.message.includes(JSON.stringify(p)) && /RE2/.test(e.message),
      p,
    );
  }
  for (const p of ['[a-z&&[^b]]', '[a[bc]]', '[[:alpha:]]', '\\0101', '\\v', 'a\\', '\\u12']) {
    assert.equal(typeof javaToRe2(p), 'object', p);
    assert.throws(() => rx(p), FilterSpecError, p);
  }
});

test('(a+)+$ against a long value: answered, false, in time linear in the value', () => {
  const f = compileRegexp('(a+)+$') as CompiledRegexp;
  for (const n of [28, 1000, 100_000]) assert.equal(f.find(`${'a'.repeat(n)}!`), false);
  assert.equal(f.find('a'.repeat(28)), true);
});

test('a value asked again is answered from the memo', () => {
  const f = compileRegexp('^s[0-9]$') as CompiledRegexp;
  assert.equal(f.find('s1'), true);
  assert.equal(f.find('s1'), true);
  assert.equal(f.find('s10'), false);
});
