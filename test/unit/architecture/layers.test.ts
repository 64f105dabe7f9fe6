// The house's shape, read from the import lines of src/ and scripts/: no file imports itself back
// through others (no cycle of files), and the rooms of src/ (its folders, and src/cli.ts and
// src/errors.ts) form no cycle either, so they stack in floors with every import pointing down — an
// import that climbs to a room above would close a cycle of rooms. A failure names the loop.
// Two rooms have a fixed place: src/load/ (what the service knows of its load: heavy hitters, hot ids,
// the region map, the region writes) sits on a low floor, above only keys/ and hbase/, and registers
// no metrics; src/metrics/ is an outer layer that only the wiring (src/service/) imports — every other
// room reports through meters or observers it declares itself.
// The pure rooms (the error vocabulary, keys/, events/, and the series API's language, computation and
// read types) import only pure rooms and no package that does I/O: the series computation stays pure.
// Outside src/, scripts/ and test/support/ come in through the rooms' public doors only: a room's
// src/<room>/index.ts (src/cli.ts and src/errors.ts are their own doors), never a file inside a room
// (docs/ARCHITECTURE.md, "Public doors").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../../..');
// `import … from '…'`, `export … from '…'` and a bare `import '…'` (for its effects)
const IMPORT = /^\s*(?:(?:import|export)\s[^'"]*?from\s+|import\s+)'(\.{1,2}\/[^']+)'/gm;
const PACKAGE_IMPORT = /^\s*(?:import|export)\s[^'"]*?from\s+'([^.'][^']*)'/gm;
const DYNAMIC_IMPORT = /\bimport\(\s*'(\.{1,2}\/[^']+)'\s*\)/g;

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : tsFiles(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

/** file → the project files it imports (relative specifiers only; `import(…)` too with `patterns`). */
function importGraph(dirs: readonly string[], patterns: readonly RegExp[] = [IMPORT]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of dirs.flatMap((d) => tsFiles(join(ROOT, d)))) {
    const text = readFileSync(file, 'utf8');
    const targets = patterns.flatMap((p) => [...text.matchAll(p)]).map((m) => relative(ROOT, resolve(dirname(file), m[1] as string)));
    graph.set(relative(ROOT, file), [...new Set(targets)]);
  }
  return graph;
}

/** One cycle of the graph (its nodes in order, the first repeated at the end), or null. */
function findCycle(graph: ReadonlyMap<string, readonly string[]>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (node: string): string[] | null => {
    state.set(node, 'open');
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      if (next === node) continue;
      if (state.get(next) === 'open') return [...path.slice(path.indexOf(next)), next];
      if (state.get(next) === undefined) {
        const found = visit(next);
        if (found !== null) return found;
      }
    }
    path.pop();
    state.set(node, 'done');
    return null;
  };
  for (const node of graph.keys()) {
    if (state.get(node) !== undefined) continue;
    const found = visit(node);
    if (found !== null) return found;
  }
  return null;
}

/** src/a/b.ts → src/a; src/cli.ts → src/cli.ts */
function roomOf(file: string): string {
  const parts = file.split('/');
  return parts.length > 2 ? `${parts[0] ?? ''}/${parts[1] ?? ''}` : file;
}

/** The rooms each room of `files` imports (relative imports of src/ only, its own room left out). */
function roomImports(files: ReadonlyMap<string, readonly string[]>): Map<string, Set<string>> {
  const rooms = new Map<string, Set<string>>();
  for (const [file, targets] of files) {
    const out = rooms.get(roomOf(file)) ?? new Set<string>();
    for (const t of targets) if (t.startsWith('src/') && roomOf(t) !== roomOf(file)) out.add(roomOf(t));
    rooms.set(roomOf(file), out);
  }
  return rooms;
}

/** A room's public door: src/<room>/index.ts, or the room itself when it is one file (src/cli.ts). */
function isDoor(target: string): boolean {
  const parts = target.split('/');
  return parts.length === 2 || (parts.length === 3 && parts[2] === 'index.ts');
}

/** The imports of src/ that pass by a room's door, as `file → module`. */
function deepImports(graph: ReadonlyMap<string, readonly string[]>): string[] {
  return [...graph].flatMap(([file, targets]) => targets.filter((t) => t.startsWith('src/') && !isDoor(t)).map((t) => `${file} → ${t}`));
}

/**
 * The imports that leave the pure rooms: `room → room` where a pure room imports a room that is not,
 * and `file → package` where a file of a pure room imports a package outside `packages`.
 */
function impureImports(
  rooms: ReadonlyMap<string, ReadonlySet<string>>,
  packages: ReadonlyMap<string, readonly string[]>,
  pure: { readonly rooms: readonly string[]; readonly packages: readonly string[] },
): string[] {
  const ofRooms = [...rooms]
    .filter(([room]) => pure.rooms.includes(room))
    .flatMap(([room, out]) => [...out].filter((r) => !pure.rooms.includes(r)).map((r) => `${room} → ${r}`));
  const ofFiles = [...packages]
    .filter(([file]) => pure.rooms.includes(roomOf(file)))
    .flatMap(([file, names]) => names.filter((n) => !pure.packages.includes(n)).map((n) => `${file} → ${n}`));
  return [...ofRooms, ...ofFiles];
}

/** The packages each file of `dir` imports. */
function packageImports(dir: string): Map<string, string[]> {
  return new Map(
    tsFiles(join(ROOT, dir)).map((f) => [relative(ROOT, f), [...new Set([...readFileSync(f, 'utf8').matchAll(PACKAGE_IMPORT)].map((m) => m[1] as string))]]),
  );
}

/**
 * The pure rooms (no I/O): each imports only pure rooms, and of packages only these (hashing, the
 * regexp engine); a type-only import counts. The series computation among them is held pure so.
 */
const PURE = {
  rooms: ['src/errors.ts', 'src/keys', 'src/events', 'src/series-language', 'src/series-compute', 'src/series-data'],
  packages: ['node:crypto', 're2js'],
};

/** Rooms below the load knowledge: all it may import. */
const LOAD_FLOOR = ['src/keys', 'src/hbase'];
/** The only rooms that may import the metrics (the wiring layer). */
const METRICS_IMPORTERS = ['src/service'];

void test('no file of src/ or scripts/ imports itself back through others', () => {
  const graph = importGraph(['src', 'scripts']);
  assert.ok(graph.size > 200, `read ${graph.size} files`);
  assert.equal(findCycle(graph)?.join(' → ') ?? null, null);
});

void test('the rooms of src/ stack in floors: no cycle of rooms, so no import climbs', () => {
  const rooms = new Map([...roomImports(importGraph(['src']))].map(([room, out]) => [room, [...out]]));
  assert.ok(rooms.size >= 15, `read ${rooms.size} rooms`);
  assert.equal(findCycle(rooms)?.join(' → ') ?? null, null);
});

void test('the check finds a loop when there is one', () => {
  assert.deepEqual(
    findCycle(
      new Map([
        ['a', ['b']],
        ['b', ['c']],
        ['c', ['a']],
      ]),
    ),
    ['a', 'b', 'c', 'a'],
  );
  assert.equal(
    findCycle(
      new Map([
        ['a', ['b', 'a']],
        ['b', []],
      ]),
    ),
    null,
    'a self-import is not a loop of rooms',
  );
});

void test('src/load/ sits above only keys/ and hbase/, and registers no metrics', () => {
  const load = roomImports(importGraph(['src'])).get('src/load');
  assert.ok(load !== undefined, 'src/load exists');
  assert.deepEqual(
    [...load].filter((r) => !LOAD_FLOOR.includes(r)),
    [],
  );
  const promClient = tsFiles(join(ROOT, 'src/load')).filter((f) => /from\s+'prom-client'/.test(readFileSync(f, 'utf8')));
  assert.deepEqual(
    promClient.map((f) => relative(ROOT, f)),
    [],
  );
});

void test('only the wiring (src/service/) imports src/metrics/: the other rooms report through their own meters and observers', () => {
  const importers = [...roomImports(importGraph(['src']))].filter(([room, out]) => room !== 'src/metrics' && out.has('src/metrics')).map(([room]) => room);
  assert.deepEqual(importers.filter((r) => !METRICS_IMPORTERS.includes(r)).sort(), []);
  assert.deepEqual(importers, METRICS_IMPORTERS, 'the wiring does import the metrics (the check reads the right graph)');
});

void test('the pure rooms, the series computation among them, import only pure rooms and no package that does I/O', () => {
  const rooms = roomImports(importGraph(['src']));
  for (const room of PURE.rooms) assert.ok(rooms.has(room), `${room} exists`);
  assert.deepEqual(impureImports(rooms, packageImports('src'), PURE), []);
  assert.ok(rooms.get('src/series-compute')?.has('src/series-language'), 'the computation imports the language (the check reads the right graph)');
});

void test('the purity check finds a pure room that imports an impure one, and a package that does I/O', () => {
  const rooms = new Map([
    ['src/series-compute', new Set(['src/series-language', 'src/events', 'src/rollup'])],
    ['src/series-language', new Set(['src/errors.ts'])],
    ['src/rollup', new Set(['src/hbase', 'src/keys'])],
  ]);
  const packages = new Map([
    ['src/series-compute/compute.ts', ['node:fs']],
    ['src/keys/salt.ts', ['node:crypto']],
    ['src/rollup/job.ts', ['pino']],
  ]);
  assert.deepEqual(impureImports(rooms, packages, PURE), ['src/series-compute → src/rollup', 'src/series-compute/compute.ts → node:fs']);
});

void test("scripts/ and test/support/ import src/ only through the rooms' public doors (src/<room>/index.ts)", () => {
  const graph = importGraph(['scripts', 'test/support'], [IMPORT, DYNAMIC_IMPORT]);
  assert.deepEqual(deepImports(graph), []);
  const doors = new Set([...graph.values()].flat().filter((t) => t.startsWith('src/')));
  assert.ok(doors.size >= 15, `read ${doors.size} doors in use (the check reads the right graph)`);
});

void test('the door check finds an import that passes by a door', () => {
  const planted = new Map([
    ['scripts/bench-x.ts', ['src/ingest/index.ts', 'src/ingest/event-writer.ts', 'src/errors.ts', 'scripts/lib/bench/rows.ts']],
    ['test/support/y.ts', ['src/doctor/rules/index.ts', 'src/series-compute/index.ts', 'src/series-compute/compute.ts']],
  ]);
  assert.deepEqual(deepImports(planted), [
    'scripts/bench-x.ts → src/ingest/event-writer.ts',
    'test/support/y.ts → src/doctor/rules/index.ts',
    'test/support/y.ts → src/series-compute/compute.ts',
  ]);
});
