// README.md is the front door and docs/ the rest: held here against the files they describe. The
// README opens with the two commands (the second is what .ci/run runs), stays short, and indexes every
// page of docs/; every relative link of README.md, docs/*.md and BENCHMARKS.md reaches a file and,
// with a #fragment, a heading of it, and so does every docs/<page>.md#fragment a comment of src/
// names; and the ports the examples use are the ones the code has: a default named beside a variable
// is that variable's default, the compose stack is reached through its variables (never a literal
// https port), and the read APIs through the query service's port.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { PUBLISHED } from '../../../scripts/lib/images/compose-ports.ts';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const read = (rel: string): string => readFileSync(join(ROOT, rel), 'utf8');
const DOCS = readdirSync(join(ROOT, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .sort();
const PAGES = ['README.md', 'BENCHMARKS.md', ...DOCS.map((f) => `docs/${f}`)];

/** The text without its fenced code blocks (links and headings there are not markdown). */
const prose = (text: string): string => text.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '');

/** GitHub's anchor of a heading: lower case, inline markup and punctuation dropped, spaces to hyphens; repeats get -1, -2, … */
function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of prose(text).matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = (m[1] ?? '')
      .toLowerCase()
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The defaults of the local stack's ports, as scripts/lib/stack/config.ts writes them: `port('TSI_STACK_X_PORT', N)`. */
function stackDefaults(): Map<string, number> {
  return new Map([...read('scripts/lib/stack/config.ts').matchAll(/port\('(TSI_STACK_[A-Z_]+_PORT)', (\d+)\)/g)].map((m) => [m[1] ?? '', Number(m[2])]));
}

/** Every variable a port example may name with its default: the compose stack's, the local stack's, and the demo's http.port. */
function portDefaults(): Map<string, number> {
  const local = JSON.parse(read('config/local.json')) as { http: { port: number } };
  return new Map([...Object.values(PUBLISHED).map((p): [string, number] => [p.variable, p.port]), ...stackDefaults(), ['TSI_HTTP_PORT', local.http.port]]);
}

void test('README opens with the two commands that set everything up, and .ci/run runs the second', () => {
  const first = /^# [^\n]+\n+```sh\n([\s\S]*?)\n```/.exec(read('README.md'))?.[1];
  assert.deepEqual(
    first?.split('\n').map((l) => l.replace(/\s+#.*$/, '')),
    ['npm ci && npm start', 'npm ci && npm test'],
  );
  assert.match(read('.ci/run'), /^phase "npm test \(local stack\)" env TSI_STACK=local npm test$/m);
});

void test('README stays a front door: under 150 lines', () => {
  const lines = read('README.md').trimEnd().split('\n').length;
  assert.ok(lines < 150, `README.md has ${lines} lines`);
});

void test("README's documentation index lists every page of docs/, each once", () => {
  const readme = read('README.md');
  const index = readme.slice(readme.indexOf('\n## Documentation\n'));
  assert.ok(index.length < readme.length, 'README has a "## Documentation" section');
  const listed = [...index.matchAll(/^\| \[docs\/([A-Z0-9-]+\.md)\]\(docs\/\1\) \| \S/gm)].map((m) => m[1] ?? '');
  assert.deepEqual([...listed].sort(), DOCS);
  assert.equal(new Set(listed).size, listed.length, 'each page once');
});

void test('every relative link of README.md, BENCHMARKS.md and docs/*.md reaches a file, and a #fragment a heading of it', () => {
  const broken: string[] = [];
  for (const page of PAGES) {
    for (const m of prose(read(page)).matchAll(/\]\(([^)\s]+)\)/g)) {
      const href = m[1] ?? '';
      if (/^[a-z]+:/.test(href)) continue; // http(s):, mailto:
      const [path = '', fragment] = href.split('#');
      const target = path === '' ? page : join(dirname(page), path);
      if (!existsSync(join(ROOT, target))) broken.push(`${page}: ${href} (no ${target})`);
      else if (fragment !== undefined && target.endsWith('.md') && !anchorsOf(read(target)).has(fragment)) {
        broken.push(`${page}: ${href} (no heading #${fragment} in ${target})`);
      }
    }
  }
  assert.deepEqual(broken, []);
});

void test('every docs/<page>.md#fragment a source file of src/ names is a heading of that page', () => {
  const files = readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  const named = files.flatMap((f) =>
    [...read(`src/${f}`).matchAll(/\bdocs\/([A-Z0-9-]+\.md)#([\w-]+)/g)].map((m) => ({ file: `src/${f}`, page: `docs/${m[1] ?? ''}`, fragment: m[2] ?? '' })),
  );
  assert.ok(named.length > 0, 'src/ names design notes');
  const broken = named.filter(({ page, fragment }) => !existsSync(join(ROOT, page)) || !anchorsOf(read(page)).has(fragment));
  assert.deepEqual(
    broken.map(({ file, page, fragment }) => `${file}: ${page}#${fragment}`),
    [],
  );
});

void test('a default named beside a port variable is that variable’s default', () => {
  const defaults = portDefaults();
  const wrong: string[] = [];
  for (const page of PAGES.filter((p) => p !== 'BENCHMARKS.md')) {
    const text = read(page);
    // `${TSI_X_PORT:-N}` in a command; `TSI_X_PORT` (N) or TSI_X_PORT, N unless moved in prose
    for (const m of text.matchAll(/\$\{(TSI_[A-Z_]+_PORT):-(\d+)\}|(TSI_[A-Z_]+_PORT)`? \((\d+)[,)]|(TSI_[A-Z_]+_PORT)`?, (\d+) unless moved/g)) {
      const variable = m[1] ?? m[3] ?? m[5] ?? '';
      const port = Number(m[2] ?? m[4] ?? m[6]);
      if (defaults.get(variable) !== port) wrong.push(`${page}: ${m[0]} (default ${String(defaults.get(variable))})`);
    }
  }
  assert.deepEqual(wrong, []);
});

void test("the local stack's port table in docs/DEVELOPMENT.md is the one scripts/lib/stack/config.ts defaults to", () => {
  const defaults = stackDefaults();
  const rows = [...read('docs/DEVELOPMENT.md').matchAll(/^\|[^|\n]+\| ([^|\n]*\d[^|\n]*) \| (`TSI_STACK_[^|\n]+) \|$/gm)];
  const seen = new Map<string, number>();
  for (const [, ports = '', variables = ''] of rows) {
    const numbers = [...ports.matchAll(/\d+/g)].map((m) => Number(m[0]));
    const names = [...variables.matchAll(/`(TSI_STACK_[A-Z_]+_PORT)`/g)].map((m) => m[1] ?? '');
    assert.equal(numbers.length, names.length, `${ports} | ${variables}`);
    names.forEach((n, i) => seen.set(n, numbers[i] ?? 0));
  }
  assert.deepEqual(seen, defaults);
});

void test('examples reach the compose stack through its port variables, and read from the query service', () => {
  const wrong: string[] = [];
  for (const page of PAGES.filter((p) => p !== 'BENCHMARKS.md')) {
    for (const m of read(page).matchAll(/https:\/\/(?:127\.0\.0\.1|localhost):(\d+)|https:\/\/127\.0\.0\.1:\$\{TSI_COMPOSE_HTTP_PORT\}\/api\/\S*/g)) {
      wrong.push(`${page}: ${m[0]}`); // a literal port, or a read from the ingest service (it answers 404 there)
    }
  }
  assert.deepEqual(wrong, []);
});

void test("the compose services' URLs the docs name are the provisioned ones: https, on config/compose.json's http.port", () => {
  const port = (JSON.parse(read('config/compose.json')) as { http: { port: number } }).http.port;
  const provisioned = /^ {4}url: (\S+)$/m.exec(read('deploy/grafana/provisioning/datasources/opentsdb.yml'))?.[1];
  assert.equal(provisioned, `https://query:${port}`);
  const named = PAGES.flatMap((page) => [...read(page).matchAll(/\bhttps?:\/\/(?:ingest|query):\d+/g)].map((m) => `${page}: ${m[0]}`));
  assert.ok(named.length > 0, 'the docs name the datasource URL');
  assert.deepEqual(
    named.filter((n) => !n.endsWith(`https://query:${port}`) && !n.endsWith(`https://ingest:${port}`)),
    [],
  );
});
