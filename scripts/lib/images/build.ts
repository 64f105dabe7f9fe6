// Builds this project's container images without a registry (`npm run images`), or on the official
// upstream bases (`--upstream`). Each image is built from a staged context under .images/<name>/,
// filled from what the host already resolves (the local stack's Maven jar sets, the compiled table
// admin tool, `npm ci --omit=dev`). Every image carries a label with the hash of its inputs; when the
// label of the existing image matches, the build is skipped, so an unchanged rebuild takes seconds.
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, existsSync, linkSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { projectRoot } from '../stack/config.ts';
import { run } from '../stack/proc.ts';

export const INPUTS_LABEL = 'org.tsingest.inputs';

/** One thing that goes into a build context: a project file or folder, or an artifact folder/file. */
export interface ContextEntry {
  /** path inside the context */
  readonly to: string;
  /** absolute source path */
  readonly from: string;
  /**
   * How the entry takes part in the inputs hash: `content` hashes every file (project sources);
   * `name` trusts a content-addressed path (the cache's hash-named jar sets) and hashes only it.
   */
  readonly hash: 'content' | 'name';
  /** files of a folder to leave out (by name) */
  readonly exclude?: RegExp;
}

export interface ImageSpec {
  readonly name: string;
  readonly tag: string;
  readonly dockerfile: string; // project-relative
  readonly entries: readonly ContextEntry[];
  readonly buildArgs: Readonly<Record<string, string>>;
  /** tags of images this one is built FROM (their ids are part of the inputs hash) */
  readonly bases: readonly string[];
}

export interface BuildResult {
  readonly tag: string;
  readonly built: boolean;
  readonly seconds: number;
}

const DOCKER_ENV = { ...process.env, DOCKER_BUILDKIT: '0' };

export function docker(args: readonly string[], what: string): Promise<string> {
  return run('docker', args, { what, env: DOCKER_ENV });
}

export async function imageId(tag: string): Promise<string | undefined> {
  try {
    return (await docker(['image', 'inspect', '-f', '{{.Id}}', tag], `inspect ${tag}`)).trim();
  } catch {
    return undefined;
  }
}

async function imageLabel(tag: string, label: string): Promise<string | undefined> {
  try {
    const v = (await docker(['image', 'inspect', '-f', `{{index .Config.Labels "${label}"}}`, tag], `inspect ${tag}`)).trim();
    return v === '' || v === '<no value>' ? undefined : v;
  } catch {
    return undefined;
  }
}

function filesUnder(dir: string, exclude?: RegExp): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    if (exclude?.test(name) === true) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p, exclude));
    else out.push(p);
  }
  return out;
}

/** Hash of everything that decides the image: Dockerfile, entries, build args and base image ids. */
export async function inputsHash(spec: ImageSpec): Promise<string> {
  const h = createHash('sha256');
  h.update(readFileSync(join(projectRoot, spec.dockerfile)));
  for (const e of spec.entries) {
    h.update(`\0${e.to}\0${e.hash}\0${e.exclude?.source ?? ''}\0`);
    if (!existsSync(e.from)) throw new Error(`image ${spec.name}: ${e.from} does not exist`);
    if (e.hash === 'name') {
      h.update(e.from);
      continue;
    }
    const files = statSync(e.from).isDirectory() ? filesUnder(e.from, e.exclude) : [e.from];
    for (const f of files)
      h.update(`${relative(e.from, f)}\0`)
        .update(readFileSync(f))
        .update(statSync(f).mode.toString(8));
  }
  for (const [k, v] of Object.entries(spec.buildArgs).sort()) h.update(`\0arg ${k}=${v}`);
  for (const b of spec.bases) h.update(`\0base ${b}=${(await imageId(b)) ?? 'absent'}`);
  return h.digest('hex').slice(0, 24);
}

/** Hard link when possible (same filesystem), copy otherwise. */
function place(from: string, to: string, exclude?: RegExp): void {
  if (statSync(from).isDirectory()) {
    mkdirSync(to, { recursive: true });
    for (const name of readdirSync(from)) {
      if (exclude?.test(name) === true) continue;
      place(join(from, name), join(to, name), exclude);
    }
    return;
  }
  mkdirSync(dirname(to), { recursive: true });
  try {
    linkSync(from, to);
  } catch {
    copyFileSync(from, to);
  }
}

function stage(spec: ImageSpec): string {
  const dir = join(projectRoot, '.images', spec.name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  cpSync(join(projectRoot, spec.dockerfile), join(dir, 'Dockerfile'));
  for (const e of spec.entries) place(e.from, join(dir, e.to), e.exclude);
  return dir;
}

/** Builds `spec` unless an image with the same inputs hash exists already. */
export async function buildImage(spec: ImageSpec, log: (m: string) => void, force = false): Promise<BuildResult> {
  const t0 = Date.now();
  const hash = await inputsHash(spec);
  if (!force && (await imageLabel(spec.tag, INPUTS_LABEL)) === hash) {
    log(`${spec.tag}: up to date (inputs ${hash})`);
    return { tag: spec.tag, built: false, seconds: (Date.now() - t0) / 1000 };
  }
  log(`${spec.tag}: building (inputs ${hash}) …`);
  const dir = stage(spec);
  const args = ['build', '-t', spec.tag, '--label', `${INPUTS_LABEL}=${hash}`, '--network', 'host'];
  for (const [k, v] of Object.entries(spec.buildArgs)) args.push('--build-arg', `${k}=${v}`);
  await docker([...args, dir], `docker build ${spec.tag}`);
  rmSync(dir, { recursive: true, force: true });
  const seconds = (Date.now() - t0) / 1000;
  log(`${spec.tag}: built in ${seconds.toFixed(1)} s`);
  return { tag: spec.tag, built: true, seconds };
}

/** The Debian mirror apt on this machine uses (deb822 sources or sources.list). */
export function debianMirror(): string {
  const candidates = ['/etc/apt/sources.list.d/debian.sources', '/etc/apt/sources.list'];
  for (const f of candidates) {
    if (!existsSync(f)) continue;
    const text = readFileSync(f, 'utf8');
    const deb822 = /^URIs:\s*(\S+)/m.exec(text);
    if (deb822?.[1] !== undefined && !deb822[1].includes('security')) return deb822[1];
    const list = /^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+bookworm\s/m.exec(text);
    if (list?.[1] !== undefined) return list[1];
  }
  return 'http://deb.debian.org/debian';
}

/**
 * The offline root of every image: `debootstrap --variant=minbase bookworm` from the host's Debian
 * mirror, imported as an image. Built once; `force` rebuilds it.
 */
export async function ensureDebianBase(tag: string, cacheDir: string, log: (m: string) => void, force = false): Promise<BuildResult> {
  const t0 = Date.now();
  if (!force && (await imageId(tag)) !== undefined) {
    log(`${tag}: present`);
    return { tag, built: false, seconds: (Date.now() - t0) / 1000 };
  }
  const mirror = debianMirror();
  const root = join(cacheDir, `debootstrap-bookworm-${process.pid}`);
  log(`${tag}: debootstrap --variant=minbase bookworm from ${mirror} (about a minute) …`);
  rmSync(root, { recursive: true, force: true });
  try {
    await run('debootstrap', ['--variant=minbase', 'bookworm', root, mirror], { what: 'debootstrap bookworm' });
    for (const sub of ['var/cache/apt/archives', 'var/lib/apt/lists']) {
      for (const f of readdirSync(join(root, sub))) if (f.endsWith('.deb') || f.includes('_dists_')) rmSync(join(root, sub, f), { force: true });
    }
    writeFileSync(join(root, 'etc/apt/apt.conf.d/99tsingest'), 'APT::Install-Recommends "false";\n');
    await run('bash', ['-c', `set -o pipefail; tar -C '${root}' -c . | docker import -c 'CMD ["/bin/bash"]' - '${tag}'`], {
      what: `docker import ${tag}`,
      env: DOCKER_ENV,
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  const seconds = (Date.now() - t0) / 1000;
  log(`${tag}: imported in ${seconds.toFixed(1)} s`);
  return { tag, built: true, seconds };
}
