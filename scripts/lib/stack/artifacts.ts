// Fetches the stack's jars from Maven Central through the machine's Maven and compiles the table
// admin tool. Results are cached by content hash, so a second run (or a fresh clone on the same
// machine) does no network work.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from './config.ts';
import { run, requireCommand } from './proc.ts';

function hashOf(...parts: (string | Buffer)[]): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest('hex').slice(0, 16);
}

/** Resolves the runtime dependencies of deploy/local/<name>/pom.xml into a cached lib folder. */
export async function resolveJars(cacheDir: string, name: 'hbase' | 'kafka' | 'opentsdb', log: (m: string) => void): Promise<string> {
  const pom = join(projectRoot, 'deploy/local', name, 'pom.xml');
  const target = join(cacheDir, `${name}-lib-${hashOf(readFileSync(pom))}`);
  if (existsSync(join(target, '.complete'))) return target;
  await requireCommand('mvn', ['-v'], 'Maven (mvn) is required to fetch HBase, Kafka and OpenTSDB from Maven Central; install it (e.g. apt-get install maven)');
  log(`fetching ${name} jars from Maven Central (first run only) …`);
  const tmp = `${target}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  await run('mvn', ['-B', '-q', '-f', pom, 'dependency:copy-dependencies', `-DoutputDirectory=${tmp}`, '-DincludeScope=runtime'], {
    what: `mvn dependency:copy-dependencies for ${name}`,
  });
  writeFileSync(join(tmp, '.complete'), new Date().toISOString());
  // Another process (a test file running beside this one) may have finished first and be using its copy.
  if (existsSync(join(target, '.complete'))) {
    rmSync(tmp, { recursive: true, force: true });
    return target;
  }
  rmSync(target, { recursive: true, force: true });
  renameSync(tmp, target);
  return target;
}

/** HBase's classpath: conf first, then every jar but the second SLF4J binding hadoop drags in. */
export function hbaseClasspath(confDir: string, libDir: string): string {
  const jars = readdirSync(libDir)
    .filter((f) => f.endsWith('.jar') && !/^(slf4j-reload4j|reload4j)-/.test(f))
    .sort()
    .map((f) => join(libDir, f));
  return [confDir, ...jars].join(':');
}

export function kafkaClasspath(libDir: string): string {
  return readdirSync(libDir)
    .filter((f) => f.endsWith('.jar'))
    .sort()
    .map((f) => join(libDir, f))
    .join(':');
}

/** Compiles deploy/admin/*.java against the HBase jars; returns the classes folder. */
export function compileAdminTool(cacheDir: string, hbaseLib: string, log: (m: string) => void): Promise<string> {
  return compileJava(cacheDir, hbaseLib, { srcRel: 'deploy/admin', prefix: 'admin-classes', what: 'the table admin tool' }, log);
}

/**
 * Compiles every .java in `srcRel` (project-relative) against the HBase jars into a cache folder
 * named by the hash of the jar set and the sources, so an unchanged tool is compiled once.
 */
export async function compileJava(
  cacheDir: string,
  hbaseLib: string,
  src: { readonly srcRel: string; readonly prefix: string; readonly what: string },
  log: (m: string) => void,
): Promise<string> {
  const { srcRel, prefix, what } = src;
  const srcDir = join(projectRoot, srcRel);
  const sources = readdirSync(srcDir)
    .filter((f) => f.endsWith('.java'))
    .sort();
  if (sources.length === 0) throw new Error(`no Java sources in ${srcDir}`);
  const target = join(cacheDir, `${prefix}-${hashOf(hbaseLib, ...sources.map((s) => readFileSync(join(srcDir, s))))}`);
  if (existsSync(join(target, '.complete'))) return target;
  await requireCommand('javac', ['-version'], `a JDK (javac, Java 17) is required to build ${what}`);
  log(`compiling ${what} …`);
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  await run('javac', ['-nowarn', '-cp', `${hbaseLib}/*`, '-d', target, ...sources.map((s) => join(srcDir, s))], { what: `javac ${srcRel}` });
  writeFileSync(join(target, '.complete'), new Date().toISOString());
  return target;
}

/** The main class of the admin tool: the compiled class that declares `main`. */
export function adminMainClass(): string {
  const src = readdirSync(join(projectRoot, 'deploy/admin')).find((f) => f === 'TableAdmin.java');
  if (src === undefined) throw new Error('deploy/admin/TableAdmin.java is missing');
  const text = readFileSync(join(projectRoot, 'deploy/admin', src), 'utf8');
  const pkg = /^\s*package\s+([\w.]+)\s*;/m.exec(text)?.[1];
  return pkg === undefined ? 'TableAdmin' : `${pkg}.TableAdmin`;
}

/** JDK 17 needs these for HBase (as bin/hbase adds them). */
export const JDK17_OPENS: readonly string[] = [
  '-XX:+IgnoreUnrecognizedVMOptions',
  ...[
    'java.base/java.lang',
    'java.base/java.lang.reflect',
    'java.base/java.io',
    'java.base/java.net',
    'java.base/java.nio',
    'java.base/sun.nio.ch',
    'java.base/java.util',
    'java.base/java.util.concurrent',
    'java.base/java.util.concurrent.atomic',
    'java.base/jdk.internal.misc',
    'java.base/jdk.internal.ref',
  ].flatMap((m) => ['--add-opens', `${m}=ALL-UNNAMED`]),
  '--add-exports',
  'java.base/jdk.internal.misc=ALL-UNNAMED',
  '--add-exports',
  'java.security.jgss/sun.security.krb5=ALL-UNNAMED',
  '-Dorg.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible=true',
  '-Dio.netty.tryReflectionSetAccessible=true',
];
