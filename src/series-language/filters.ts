// Pure: OpenTSDB 2.4.1's tag-value filters (net.opentsdb.query.filter.*): building, validating, the
// shortcut forms and matching, quirks included.
// Design notes: docs/DECISIONS.md#tag-value-filters

import { FILTER_TYPES, type FilterType, type TagFilter } from './types.ts';
import { badQuery } from './errors.ts';
import { ServiceError, type CauseOptions } from '../errors.ts';
import { javaSplit } from './downsample-spec.ts';
import { jsonScalarText } from './time.ts';
import { compileRegexp, type CompiledRegexp } from './regexp.ts';

/** A filter problem in OpenTSDB's words; callers add the field. */
export class FilterSpecError extends ServiceError<'BAD_FILTER'> {
  override name = 'FilterSpecError';

  constructor(message: string, options: CauseOptions = {}) {
    super({ code: 'BAD_FILTER', message, cause: options.cause });
  }
}

function isFilterType(t: string): t is FilterType {
  return (FILTER_TYPES as readonly string[]).includes(t);
}

/** TagVFilter.Builder.build() + the filter's constructor. Throws FilterSpecError. */
export function buildFilter(
  type: string | undefined,
  tagk: string | undefined,
  filter: string | undefined,
  opts: { readonly groupBy?: boolean; readonly caseInsensitive?: boolean } = {},
): TagFilter {
  const { groupBy = false, caseInsensitive = false } = opts;
  if (type === undefined || type === '') throw new FilterSpecError('The filter type cannot be null or empty');
  if (tagk === undefined || tagk === '') throw new FilterSpecError('The tagk cannot be null or empty');
  if (!isFilterType(type)) throw new FilterSpecError(`Could not find a tag value filter of the type: ${type}`);
  if (filter === undefined || filter === '') throw new FilterSpecError('Filter cannot be null or empty');
  const built: TagFilter = caseInsensitive ? { type, tagk, filter, groupBy, caseInsensitive: true } : { type, tagk, filter, groupBy };
  compileFilter(built); // every constructor check
  return built;
}

interface Compiled {
  readonly identity: string;
  readonly test: (value: string | undefined) => boolean;
}

/** The `regexp` filter's engine (regexp.ts: RE2, linear time). Throws FilterSpecError naming the pattern. */
export function compileRegex(filter: string): CompiledRegexp {
  const re = compileRegexp(filter);
  if (!('refused' in re)) return re;
  throw new FilterSpecError(
    `Invalid regular expression ${JSON.stringify(filter)}: ${re.refused} (regexp filters are matched in linear time by an RE2-class engine: no backreferences, lookaround, possessive quantifiers nor atomic groups; docs/SERIES-API.md)`,
  );
}

function literalSet(filter: string, ci: boolean): Set<string> {
  if (filter === '|') throw new FilterSpecError('Filter must contain more than just a pipe');
  const split = javaSplit(filter, '|');
  return new Set(ci ? split.map((s) => s.toLowerCase()) : split);
}

interface WildcardParts {
  readonly hasPostfix: boolean;
  readonly hasPrefix: boolean;
  readonly components: readonly string[];
}

/** TagVWildcardFilter's constructor, step for step. */
export function wildcardParts(filter: string, ci: boolean): WildcardParts {
  let actual = ci ? filter.toLowerCase() : filter;
  if (!actual.includes('*')) throw new FilterSpecError('Filter must contain an asterisk');
  const hasPostfix = actual.startsWith('*');
  if (hasPostfix) while (actual.startsWith('*') && actual.length >= 2) actual = actual.substring(1);
  const hasPrefix = actual.endsWith('*');
  if (hasPrefix) while (actual.endsWith('*') && actual.length >= 2) actual = actual.substring(0, actual.length - 1);
  const components = actual.indexOf('*') > 0 ? actual.split('*') : [actual];
  return { hasPostfix, hasPrefix, components };
}

function wildcardTest(p: WildcardParts, ci: boolean): (value: string | undefined) => boolean {
  const { hasPostfix, hasPrefix, components } = p;
  const first = components[0] ?? '';
  const last = components[components.length - 1] ?? '';
  return (raw) => {
    if (raw === undefined) return false;
    if (components.length === 1 && first === '*') return true;
    const v = ci ? raw.toLowerCase() : raw;
    if (hasPostfix && !hasPrefix && !v.endsWith(last)) return false;
    if (hasPrefix && !hasPostfix && !v.startsWith(first)) return false;
    let idx = 0;
    for (const c of components) {
      if (v.indexOf(c, idx) < 0) return false;
      idx += c.length;
    }
    return true;
  };
}

const compiledCache = new WeakMap<TagFilter, Compiled>();

/** Validates (as the Java constructor) and compiles a filter. Throws FilterSpecError. */
export function compileFilter(f: TagFilter): Compiled {
  const cached = compiledCache.get(f);
  if (cached !== undefined) return cached;
  if (f.filter === '') throw new FilterSpecError('Filter cannot be null or empty');
  let compiled: Compiled;
  switch (f.type) {
    case 'literal_or':
    case 'iliteral_or':
    case 'not_literal_or':
    case 'not_iliteral_or': {
      const ci = f.type === 'iliteral_or' || f.type === 'not_iliteral_or';
      const negate = f.type.startsWith('not_');
      const set = literalSet(f.filter, ci);
      const family = negate ? 'not_literal' : 'literal';
      compiled = {
        identity: JSON.stringify([family, f.type, f.tagk, [...set].sort(), ci]),
        test: (v) => (v === undefined ? negate : set.has(ci ? v.toLowerCase() : v) !== negate),
      };
      break;
    }
    case 'wildcard':
    case 'iwildcard': {
      const ci = f.type === 'iwildcard' || f.caseInsensitive === true;
      const parts = wildcardParts(f.filter, ci);
      compiled = { identity: JSON.stringify(['wildcard', f.tagk, parts.components, ci]), test: wildcardTest(parts, ci) };
      break;
    }
    case 'regexp': {
      const re = compileRegex(f.filter);
      compiled = { identity: JSON.stringify(['regexp', f.tagk, f.filter]), test: (v) => v !== undefined && re.find(v) };
      break;
    }
  }
  compiledCache.set(f, compiled);
  return compiled;
}

/** OpenTSDB's match() for one series: `value` is the series' value of filter.tagk (undefined: absent). */
export function matches(filter: TagFilter, value: string | undefined): boolean {
  return compileFilter(filter).test(value);
}

/** OpenTSDB's filter equality (TagVFilter subclasses' equals(): group_by is not part of it). */
export function sameFilter(a: TagFilter, b: TagFilter): boolean {
  return compileFilter(a).identity === compileFilter(b).identity;
}

/** TagVFilter.getFilter: `type(expr)`, the `*`-shortcut, or null (a literal, or `*` alone). */
export function shortcutFilter(tagk: string, value: string): TagFilter | null {
  if (tagk === '') throw new FilterSpecError('Tagk cannot be null or empty');
  if (value === '') throw new FilterSpecError('Filter cannot be null or empty');
  if (value === '*') return null;
  const paren = value.indexOf('(');
  if (paren > -1) {
    if (!value.endsWith(')')) throw new FilterSpecError(`Filter must end with a ')': ${value}`);
    return buildFilter(value.substring(0, paren).toLowerCase(), tagk, value.substring(paren + 1, value.length - 1));
  }
  if (value.includes('*')) return buildFilter('wildcard', tagk, value, { caseInsensitive: true });
  return null;
}

/** TagVFilter.mapToFilters: appends to `filters`; with groupBy, an equal filter already there only gains groupBy. */
export function mapToFilters(entries: Iterable<readonly [string, string]>, filters: TagFilter[], groupBy: boolean): void {
  for (const [tagk, value] of entries) {
    let f = shortcutFilter(tagk, value);
    if (f === null && value === '*') f = buildFilter('wildcard', tagk, '*', { caseInsensitive: true });
    else f ??= buildFilter('literal_or', tagk, value);
    if (!groupBy) {
      filters.push(f);
      continue;
    }
    f = { ...f, groupBy: true };
    const dup = filters.findIndex((existing) => sameFilter(existing, f));
    if (dup < 0) filters.push(f);
    else filters[dup] = { ...(filters[dup] as TagFilter), groupBy: true };
  }
}

/** Tags.parse for one `tagk=value` of a `{…}` group (the value may be `type(expr)`). */
export function parseTagPair(tag: string): readonly [string, string] {
  const kv = tag.split('=');
  const [k = '', v = ''] = kv;
  if (kv.length !== 2 || k === '' || v === '') throw new FilterSpecError(`invalid tag: ${tag}`);
  return [k, v];
}

/**
 * A JSON filter object as TagVFilter.Builder reads it (`type`, `tagk`, `filter`, `groupBy` or
 * `group_by`; other keys ignored). Throws TsdbQueryError naming `field`: OpenTSDB's message is
 * "Unable to parse the given JSON" with the filter's own complaint in details.
 */
export function parseFilterObject(raw: unknown, field: string): TagFilter {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw badQuery(field, 'Unable to parse the given JSON', 'a filter must be an object {type, tagk, filter, groupBy}');
  }
  const o = raw as Record<string, unknown>;
  const str = (k: string): string | undefined => (o[k] === null ? undefined : jsonScalarText(o[k]));
  let groupBy = false;
  for (const key of Object.keys(o)) {
    if (key === 'groupBy' || key === 'group_by') groupBy = jsonBoolean(o[key], `${field}.${key}`);
  }
  try {
    return buildFilter(str('type'), str('tagk'), str('filter'), { groupBy });
  } catch (err) {
    if (err instanceof FilterSpecError) throw badQuery(field, 'Unable to parse the given JSON', err.message);
    throw err;
  }
}

/** Jackson's coercion of a JSON value into a Java boolean (true/false, "true"/"false", numbers, null). */
export function jsonBoolean(v: unknown, field: string): boolean {
  if (v === null || v === undefined) return false;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  if (typeof v === 'string') {
    const t = v.trim();
    if (t === 'true' || t === 'True' || t === 'TRUE') return true;
    if (t === 'false' || t === 'False' || t === 'FALSE' || t === '') return false;
  }
  throw badQuery(field, 'Unable to parse the given JSON', `Cannot deserialize a boolean from ${JSON.stringify(v)}`);
}
