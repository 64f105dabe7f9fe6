// node scripts/bench-front-door.ts [--identities 10] [--parallel 100] [--rounds 3]
// The service's RSS under N parallel maximal reads from several identities, with ingest running
// (issue 27, docs/SECURITY.md "Limits"): a service child with the image's heap flags
// (src/runtime/node-options.ts) and the shipped limits (http.limits.*), one id with 12,000 events,
// then `--rounds` waves of `--parallel` `GET /api/v1/ids/big/latest?limit=10000` (the largest page),
// spread over `--identities` bearer tokens, while 2,000 events/s of other ids are produced. VmRSS is
// sampled every 50 ms. Writes bench-results/front-door-<time>.json; the test stack's cleanup drops
// its tables and topics. Needs the local stack (TSI_HBASE_REST_URL, TSI_KAFKA_BROKERS,
// TSI_ADMIN_COMMAND as for the integration tests).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { hashToken } from '../src/front-door/index.ts';
import { SERVICE_NODE_OPTIONS } from '../src/runtime/index.ts';
import { createHarness, freePort, produceEvents, startChild, waitFor, type TestEvent } from '../test/support/service-harness.ts';
import { projectRoot } from './lib/stack/config.ts';

const { values } = parseArgs({
  options: { identities: { type: 'string', default: '10' }, parallel: { type: 'string', default: '100' }, rounds: { type: 'string', default: '3' } },
});
const identities = Number(values.identities);
const parallel = Number(values.parallel);
const rounds = Number(values.rounds);
const say = (m: string): void => {
  process.stdout.write(`[bench:front-door] ${m}\n`);
};
const rssMb = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

async function writtenEvents(port: number, authorization: string): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization } }).catch(() => undefined);
  if (res?.status !== 200) return 0;
  let n = 0;
  for (const m of (await res.text()).matchAll(/^tsingest_events_total\{[^}]*outcome="written"[^}]*\} (\S+)$/gm)) n += Number(m[1]);
  return n;
}

async function main(): Promise<void> {
  const cleanups: (() => Promise<void>)[] = [];
  try {
    const h = await createHarness(
      {
        after: (fn) => {
          cleanups.push(fn);
        },
      },
      { prefix: 'bfd', partitions: 3 },
    );
    const tokens = Array.from({ length: identities }, (_, i) => `bench-token-${i}-${'x'.repeat(24)}`);
    const creds = { tokens: tokens.map((tok, i) => ({ name: `client${i}`, sha256: hashToken(tok), scopes: ['read', 'metrics'] })) };
    const port = await freePort();
    process.env['NODE_OPTIONS'] = SERVICE_NODE_OPTIONS;
    const svc = startChild(h, ['kafka.groupId=bfd', `http.auth.credentials=${JSON.stringify(creds)}`], port);
    const base = Date.UTC(2026, 10, 20);
    const big: TestEvent[] = Array.from({ length: 12_000 }, (_, i) => ({
      id: 'big',
      ts: base + i * 1000,
      metric: i % 2 ? 'temp' : 'hum',
      value: i,
      tags: { site: `s${i % 7}`, rack: `r${i % 3}` },
    }));
    await produceEvents(h, big);
    const auth = `Bearer ${tokens[0] ?? ''}`;
    await waitFor('the big id written', 300_000, async () => (await writtenEvents(port, auth)) >= big.length, 1000);
    const pid = svc.child.pid ?? 0;
    const state = { stop: false };
    let produced = 0;
    const ingest = (async () => {
      while (!state.stop) {
        await produceEvents(
          h,
          Array.from({ length: 1000 }, (_, i) => ({
            id: `live-${i % 200}`,
            ts: Date.now() - 1000 + produced + i,
            metric: 'temp',
            value: i,
            tags: { site: 'live' },
          })),
        );
        produced += 1000;
        await new Promise((r) => setTimeout(r, 500));
      }
    })();
    await new Promise((r) => setTimeout(r, 5000));
    const idleMb = rssMb(pid);
    let peakMb = idleMb;
    const sampler = setInterval(() => {
      if (svc.child.exitCode === null) peakMb = Math.max(peakMb, rssMb(pid));
    }, 50);
    const statuses: Record<string, number> = {};
    let bytes = 0;
    const t0 = Date.now();
    for (let r = 0; r < rounds; r++) {
      await Promise.all(
        Array.from({ length: parallel }, async (_, i) => {
          const res = await fetch(`http://127.0.0.1:${port}/api/v1/ids/big/latest?limit=10000`, {
            headers: { authorization: `Bearer ${tokens[i % identities] ?? ''}` },
          }).catch(() => undefined);
          const key = res === undefined ? 'refused' : String(res.status);
          if (res !== undefined) bytes += (await res.arrayBuffer()).byteLength;
          statuses[key] = (statuses[key] ?? 0) + 1;
        }),
      );
    }
    const seconds = (Date.now() - t0) / 1000;
    clearInterval(sampler);
    state.stop = true;
    await ingest;
    const alive = svc.child.exitCode === null && svc.child.signalCode === null;
    const record = {
      at: new Date().toISOString(),
      command: `node scripts/bench-front-door.ts --identities ${identities} --parallel ${parallel} --rounds ${rounds}`,
      identities,
      parallel,
      rounds,
      idleMb,
      peakMb,
      afterMb: alive ? rssMb(pid) : null,
      alive,
      statuses,
      servedMb: bytes / 1e6,
      seconds,
      ingestProducedDuringReads: produced,
    };
    const dir = join(projectRoot, 'bench-results');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `front-door-${record.at.replaceAll(':', '-').replaceAll('.', '-')}.json`);
    writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
    say(
      `RSS idle ${idleMb.toFixed(0)} MB, peak ${peakMb.toFixed(0)} MB; statuses ${JSON.stringify(statuses)}; ${record.servedMb.toFixed(0)} MB served in ${seconds.toFixed(1)} s; service ${alive ? 'alive' : 'DEAD'}`,
    );
    say(`results in ${file}`);
    if (!alive || (statuses['200'] ?? 0) === 0) process.exitCode = 1;
  } finally {
    for (const fn of cleanups.reverse()) await fn().catch(() => undefined);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`[bench:front-door] ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
