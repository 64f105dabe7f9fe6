// The project's images and where their build contexts come from. Versions have one source of truth:
// the Maven poms of the local stack (HBase, Kafka), package.json's `node` devDependency (Node) and
// Debian bookworm (JRE 17, Prometheus).
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { adminMainClass, compileAdminTool, resolveJars } from '../stack/artifacts.ts';
import { buildImage, ensureDebianBase, type BuildResult, type ImageSpec } from './build.ts';
import { kafkaToolsJar } from '../stack/kafka-tools.ts';
import { run } from '../stack/proc.ts';
import { pinnedVersions, projectRoot, stackLayout } from '../stack/config.ts';

export type ImageName = 'hbase' | 'kafka' | 'service' | 'prometheus';
export const IMAGE_NAMES: readonly ImageName[] = ['hbase', 'kafka', 'service', 'prometheus'];

/** Official bases (used with --upstream) and the offline ones built here from Debian packages. */
export interface Bases {
  readonly debian: string;
  readonly jre: string;
  readonly node: string;
}
export const UPSTREAM_BASES: Bases = { debian: 'debian:bookworm-slim', jre: 'eclipse-temurin:17-jre-noble', node: 'node:24-bookworm-slim' };

export function imageTags(): Record<ImageName, string> {
  const v = pinnedVersions();
  return { hbase: `tsingest-hbase:${v.hbase}`, kafka: `tsingest-kafka:${v.kafka}`, service: 'tsingest:dev', prometheus: 'tsingest-prometheus:bookworm' };
}

const p = (rel: string): string => join(projectRoot, rel);

function nodeVersion(): string {
  return (JSON.parse(readFileSync(p('node_modules/node/package.json'), 'utf8')) as { version: string }).version;
}

/** `npm ci --omit=dev` of this package.json + lock, once per lock hash, in the cache. */
async function productionModules(cacheDir: string, log: (m: string) => void): Promise<string> {
  const lock = readFileSync(p('package-lock.json'));
  const pkg = readFileSync(p('package.json'));
  const dir = join(cacheDir, `service-modules-${createHash('sha256').update(pkg).update(lock).digest('hex').slice(0, 16)}`);
  if (existsSync(join(dir, '.complete'))) return join(dir, 'node_modules');
  log("installing the service's production dependencies (npm ci --omit=dev) …");
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  writeFileSync(join(tmp, 'package.json'), pkg);
  writeFileSync(join(tmp, 'package-lock.json'), lock);
  await run('npm', ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--prefix', tmp], { what: 'npm ci --omit=dev' });
  writeFileSync(join(tmp, '.complete'), new Date().toISOString());
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  return join(dir, 'node_modules');
}

export interface BuildOptions {
  readonly upstream: boolean;
  readonly force: boolean;
  readonly only: readonly ImageName[];
}

/** Builds the offline bases (unless upstream) and the asked images; returns per-image results. */
export async function buildImages(opts: BuildOptions, log: (m: string) => void): Promise<BuildResult[]> {
  const cacheDir = stackLayout().cacheDir;
  mkdirSync(cacheDir, { recursive: true });
  const tags = imageTags();
  const results: BuildResult[] = [];
  let bases = UPSTREAM_BASES;
  if (!opts.upstream) {
    bases = { debian: 'tsingest-debian:bookworm', jre: 'tsingest-jre:17', node: `tsingest-node:${nodeVersion()}` };
    results.push(await ensureDebianBase(bases.debian, cacheDir, log, opts.force));
    const needJre = opts.only.some((n) => n === 'hbase' || n === 'kafka');
    if (needJre) {
      results.push(
        await buildImage(
          {
            name: 'base-jre',
            tag: bases.jre,
            dockerfile: 'deploy/base/jre/Dockerfile',
            entries: [],
            buildArgs: { DEBIAN_IMAGE: bases.debian },
            bases: [bases.debian],
          },
          log,
          opts.force,
        ),
      );
    }
    if (opts.only.includes('service')) {
      const nodeBin = p('node_modules/node/bin/node');
      results.push(
        await buildImage(
          {
            name: 'base-node',
            tag: bases.node,
            dockerfile: 'deploy/base/node/Dockerfile',
            entries: [{ to: 'node', from: nodeBin, hash: 'content' }],
            buildArgs: { DEBIAN_IMAGE: bases.debian },
            bases: [bases.debian],
          },
          log,
          opts.force,
        ),
      );
    }
  }
  for (const name of opts.only) {
    results.push(await buildImage(await specOf({ name, tag: tags[name] }, bases, cacheDir, log), log, opts.force));
  }
  return results;
}

async function specOf(image: { readonly name: ImageName; readonly tag: string }, bases: Bases, cacheDir: string, log: (m: string) => void): Promise<ImageSpec> {
  const { name, tag } = image;
  const container = { to: 'container', from: p('deploy/container'), hash: 'content' } as const;
  switch (name) {
    case 'hbase': {
      const lib = await resolveJars(cacheDir, 'hbase', log);
      const classes = await compileAdminTool(cacheDir, lib, log);
      const mainFile = join(cacheDir, 'admin-main-class');
      writeFileSync(mainFile, `${adminMainClass()}\n`);
      return {
        name,
        tag,
        dockerfile: 'deploy/hbase/Dockerfile',
        buildArgs: { JRE_IMAGE: bases.jre },
        bases: [bases.jre],
        entries: [
          // The second SLF4J binding hadoop drags in is left out, as on the local stack's classpath.
          { to: 'lib', from: lib, hash: 'name', exclude: /^(slf4j-reload4j|reload4j)-|^\.complete$/ },
          { to: 'admin-classes', from: classes, hash: 'name', exclude: /^\.complete$/ },
          { to: 'admin-main-class', from: mainFile, hash: 'content' },
          { to: 'hbase', from: p('deploy/hbase'), hash: 'content', exclude: /^Dockerfile$/ },
          container,
        ],
      };
    }
    case 'kafka': {
      const lib = await resolveJars(cacheDir, 'kafka', log);
      const tools = await kafkaToolsJar(log);
      return {
        name,
        tag,
        dockerfile: 'deploy/kafka/Dockerfile',
        buildArgs: { JRE_IMAGE: bases.jre },
        bases: [bases.jre],
        entries: [
          { to: 'libs', from: lib, hash: 'name', exclude: /^\.complete$/ },
          { to: 'libs/kafka-tools.jar', from: tools, hash: 'name' },
          { to: 'kafka', from: p('deploy/kafka'), hash: 'content', exclude: /^Dockerfile$/ },
          { to: 'kafka/log4j.properties', from: p('deploy/local/kafka/log4j.properties'), hash: 'content' },
          container,
        ],
      };
    }
    case 'service':
      return {
        name,
        tag,
        dockerfile: 'deploy/service/Dockerfile',
        buildArgs: { NODE_IMAGE: bases.node },
        bases: [bases.node],
        entries: [
          { to: 'node_modules', from: await productionModules(cacheDir, log), hash: 'name' },
          { to: 'package.json', from: p('package.json'), hash: 'content' },
          { to: 'package-lock.json', from: p('package-lock.json'), hash: 'content' },
          { to: 'src', from: p('src'), hash: 'content', exclude: /\.test\.ts$/ },
          { to: 'config', from: p('config'), hash: 'content' },
        ],
      };
    case 'prometheus':
      return {
        name,
        tag,
        dockerfile: 'deploy/prometheus/Dockerfile',
        buildArgs: { DEBIAN_IMAGE: bases.debian },
        bases: [bases.debian],
        entries: [
          { to: 'prometheus.yml', from: p('deploy/prometheus/prometheus.yml'), hash: 'content' },
          { to: 'rules', from: p('deploy/prometheus/rules'), hash: 'content' },
        ],
      };
  }
}
