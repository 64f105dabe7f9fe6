// npm run images [-- --upstream] [--force] [hbase|kafka|service|prometheus …]
// Builds the project's container images. Default: offline, on bases made here from Debian packages
// (debootstrap + docker import; JRE 17 from Debian, Node 24 from the `node` npm package), with the
// HBase and Kafka jar sets the local stack resolves from Maven Central. --upstream builds the same
// images on the official bases (eclipse-temurin, node, debian) from a registry instead.
import { parseArgs } from 'node:util';
import { IMAGE_NAMES, buildImages, type ImageName } from './lib/images/specs.ts';

const log = (m: string): void => {
  process.stdout.write(`[images] ${m}\n`);
};

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    options: { upstream: { type: 'boolean', default: false }, force: { type: 'boolean', default: false } },
    allowPositionals: true,
  });
  const unknown = positionals.filter((n) => !(IMAGE_NAMES as readonly string[]).includes(n));
  if (unknown.length > 0) {
    process.stderr.write(`unknown image ${unknown.join(', ')}; images are ${IMAGE_NAMES.join(', ')}\n`);
    return 2;
  }
  const only = positionals.length > 0 ? (positionals as ImageName[]) : IMAGE_NAMES;
  const t0 = Date.now();
  const results = await buildImages({ upstream: values.upstream, force: values.force, only }, log);
  for (const r of results) log(`${r.built ? 'built ' : 'cached'} ${r.tag.padEnd(32)} ${r.seconds.toFixed(1)} s`);
  log(`done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`[images] error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
