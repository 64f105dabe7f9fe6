import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildFilter, FilterSpecError, mapToFilters, matches, parseFilterObject, shortcutFilter } from '../../../src/series-language/filters.ts';
import { TsdbQueryError } from '../../../src/series-language/errors.ts';
import type { TagFilter } from '../../../src/series-language/types.ts';

const HOST = 'ogg-01.ops.ankh.morpork.com';
const f = (type: string, filter: string): TagFilter => buildFilter(type, 'host', filter);

// TestTagVWildcardFilter, every match vector: [tag value, filter, case-insensitive, expected]
const WILDCARD: [string | undefined, string, boolean, boolean][] = [
  [HOST, '*', false, true],
  [undefined, '*', false, false],
  [HOST, '*.morpork.com', false, true],
  [HOST, 'ogg*', false, true],
  [HOST, 'ogg*com', false, true],
  [HOST, 'ogg*ops*ank*com', false, true],
  [HOST, 'ogg*ops*com', false, true],
  [HOST, '*morpork*', false, true],
  [HOST, '*ops*com', false, true],
  [HOST, '*ops*mor*com', false, true],
  [HOST, 'ogg*ops*', false, true],
  [HOST, 'ogg*ops*mor*', false, true],
  [HOST, 'ogg***com', false, true],
  [HOST, 'ogg*****', false, true],
  [HOST, '****com', false, true],
  [HOST, '****ogg*****mor****com****', false, true],
  ['*ops*mor', '*ops*mor', false, true],
  ['ogg*ops*', 'ogg*ops*', false, true],
  ['ogg*ops*mor', 'ogg*ops*mor', false, true],
  ["Здравей'_хора", '*хора', false, true],
  ["Здравей'_хора", 'Здр*', false, true],
  ["Здравей'_хора", 'Здр*ра', false, true],
  [HOST, '*.morpork.org', false, false],
  [HOST, 'magrat*', false, false],
  [HOST, 'magrat*com', false, false],
  [HOST, '*quirm*', false, false],
  [HOST, '*.MorPork.com', false, false],
  [HOST, 'Ogg*', false, false],
  [HOST, 'ogG*Com', false, false],
  [HOST, '*.MorPork.com', true, true],
  ['ogg-01.ops.ankh.MORPORK.com', '*.MorPork.com', true, true],
  [HOST, 'Ogg*', true, true],
  [HOST, 'ogG*Com', true, true],
  [HOST, '****', false, true],
  [undefined, '*.morpork.com', false, false],
  [undefined, '*.morpork.com', true, false],
];

test('TestTagVWildcardFilter vectors', () => {
  for (const [value, filter, ci, expected] of WILDCARD) {
    assert.equal(matches(f(ci ? 'iwildcard' : 'wildcard', filter), value), expected, `${filter} ~ ${String(value)}`);
  }
  // OpenTSDB's loop advances by the piece's length: a*b without outer stars is an infix match
  assert.equal(matches(f('wildcard', 'a*b'), 'xxaxxbxx'), true);
  assert.throws(() => f('wildcard', 'someliteral'), /^FilterSpecError: Filter must contain an asterisk$/);
  assert.throws(() => f('wildcard', ''), /Filter cannot be null or empty/);
});

test('literal_or, iliteral_or and the not_ variants', () => {
  assert.equal(matches(f('literal_or', 'web01|web02'), 'web02'), true);
  assert.equal(matches(f('literal_or', 'web01|web02'), 'WEB02'), false);
  assert.equal(matches(f('literal_or', 'web01|web02'), undefined), false);
  assert.equal(matches(f('iliteral_or', 'Web01|web02'), 'WEB01'), true);
  assert.equal(matches(f('not_literal_or', 'web01|web02'), 'web03'), true);
  assert.equal(matches(f('not_literal_or', 'web01|web02'), 'web01'), false);
  assert.equal(matches(f('not_literal_or', 'web01'), undefined), true); // no tag: not_ matches
  assert.equal(matches(f('not_iliteral_or', 'WEB01'), 'web01'), false);
  assert.equal(matches(f('not_iliteral_or', 'WEB01'), 'web02'), true);
  assert.equal(matches(f('literal_or', 'a|'), 'a'), true);
  assert.equal(matches(f('literal_or', 'a|'), ''), false); // Java split dropped the trailing empty
  assert.throws(() => f('literal_or', '|'), /Filter must contain more than just a pipe/);
});

test('regexp is unanchored (Matcher.find) and validated', () => {
  assert.equal(matches(f('regexp', 'web[0-9]+'), 'xx-web01-yy'), true);
  assert.equal(matches(f('regexp', '^web[0-9]+$'), 'xx-web01'), false);
  assert.equal(matches(f('regexp', '.*'), undefined), false);
  assert.equal(matches(f('regexp', '(?i)^WEB'), 'web01'), true);
  assert.throws(
    () => f('regexp', 'web[0-9'),
    (e: unknown) => e instanceof FilterSpecError && /Invalid regular expression/.test(e.message),
  );
});

test('Builder errors name the type', () => {
  assert.throws(() => buildFilter('nosuch', 'host', 'x'), /^FilterSpecError: Could not find a tag value filter of the type: nosuch$/);
  assert.throws(() => buildFilter('Literal_or', 'host', 'x'), /Could not find a tag value filter of the type: Literal_or/);
  assert.throws(() => buildFilter('', 'host', 'x'), /The filter type cannot be null or empty/);
  assert.throws(() => buildFilter('literal_or', '', 'x'), /The tagk cannot be null or empty/);
});

test('JSON filter objects: groupBy or group_by; errors as "Unable to parse the given JSON"', () => {
  assert.deepEqual(parseFilterObject({ type: 'literal_or', tagk: 'site', filter: 'site-3', groupBy: false }, 'q'), {
    type: 'literal_or',
    tagk: 'site',
    filter: 'site-3',
    groupBy: false,
  });
  assert.equal(parseFilterObject({ type: 'wildcard', tagk: 'host', filter: '*', group_by: true }, 'q').groupBy, true);
  assert.throws(
    () => parseFilterObject({ type: 'bogus', tagk: 'host', filter: 'x' }, 'queries[0].filters[1]'),
    (err: unknown) => {
      assert.ok(err instanceof TsdbQueryError);
      assert.equal(err.field, 'queries[0].filters[1]');
      assert.equal(err.message, 'Unable to parse the given JSON');
      assert.equal(err.details, 'Could not find a tag value filter of the type: bogus');
      return true;
    },
  );
});

test('TagVFilter.getFilter shortcuts and tagsToFilters', () => {
  assert.equal(shortcutFilter('host', '*'), null);
  assert.equal(shortcutFilter('host', 'web01'), null);
  assert.deepEqual(shortcutFilter('host', 'RegExp(web.*)'), { type: 'regexp', tagk: 'host', filter: 'web.*', groupBy: false });
  assert.deepEqual(shortcutFilter('host', 'Web*'), { type: 'wildcard', tagk: 'host', filter: 'Web*', groupBy: false, caseInsensitive: true });
  assert.throws(() => shortcutFilter('host', 'regexp(web'), /Filter must end with a '\)': regexp\(web/);
  const filters: TagFilter[] = [];
  mapToFilters(
    [
      ['host', '*'],
      ['dc', 'a|b'],
      ['site', 'Web*'],
      ['rack', 'r1'],
    ],
    filters,
    true,
  );
  assert.deepEqual(
    filters.map((x) => [x.type, x.tagk, x.filter, x.groupBy]),
    [
      ['wildcard', 'host', '*', true],
      ['literal_or', 'dc', 'a|b', true],
      ['wildcard', 'site', 'Web*', true],
      ['literal_or', 'rack', 'r1', true],
    ],
  );
  const legacy = filters[2];
  assert.ok(legacy !== undefined);
  assert.equal(matches(legacy, 'web-7'), true); // the shortcut wildcard is case-insensitive
});
