// npm run compat:opentsdb -- [--small] [--record [DIR]] [--ours URL [--produce TOPIC] [--ours-wait S]]
//                            [--reps 5] [--only PATTERN] [--endpoints FILE] [--divergences FILE]
// OpenTSDB 2.4.1's TSD, side by side with our /api/query (docs/SERIES-API.md, "Side by side with
// OpenTSDB"): the TSD on the running local stack (tables named for this run, dropped at the end), the
// deterministic data set put into it, then
//  --record DIR  the TSD's answer to every suite query, recorded (default test/fixtures/opentsdb-answers/);
//  --ours URL    every query sent to both, compared; exit 1 on any difference not documented in
//                docs/SERIES-API-DIVERGENCES.json; p50/p99 per shape for both sides.
// Our side must hold the same data set (dataset.ts `events`): `--produce TOPIC` sends the events to
// our service's Kafka topic first; either way the comparison starts only once ours counts every point.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { projectRoot, readEndpoints } from './lib/stack/config.ts';
import { DEFAULT_DATASET, SMALL_DATASET, events, points } from './lib/compat/dataset.ts';
import { produceEvents } from './lib/compat/ours-load.ts';
import { suite, type CompatQuery } from './lib/compat/suite.ts';
import type { Answer } from './lib/compat/compare.ts';
import { parseDivergences } from './lib/compat/divergences.ts';
import { sendToTsd } from './lib/compat/http.ts';
import { countAnswer, writeRecording } from './lib/compat/recording.ts';
import { openTsd, waitForAll } from './lib/compat/tsd-session.ts';
import { compareWithOurs } from './lib/compat/side-by-side.ts';

const DEFAULT_RECORD_DIR = join(projectRoot, 'test/fixtures/opentsdb-answers');
// `--record` with no folder after it records into the default folder
const argv = process.argv.slice(2);
const ri = argv.indexOf('--record');
if (ri >= 0 && (argv[ri + 1] === undefined || argv[ri + 1]?.startsWith('--') === true)) argv.splice(ri + 1, 0, DEFAULT_RECORD_DIR);

const { values } = parseArgs({
  args: argv,
  options: {
    small: { type: 'boolean', default: false },
    record: { type: 'string' },
    ours: { type: 'string' },
    produce: { type: 'string' },
    'ours-wait': { type: 'string', default: '300' },
    reps: { type: 'string', default: '5' },
    only: { type: 'string' },
    endpoints: { type: 'string' },
    divergences: { type: 'string', default: join(projectRoot, 'docs/SERIES-API-DIVERGENCES.json') },
  },
});
const say = (m: string): void => {
  process.stdout.write(`[compat:opentsdb] ${m}\n`);
};

function selected(all: readonly CompatQuery[]): CompatQuery[] {
  const only = values.only;
  if (only === undefined) return [...all];
  const re = new RegExp(
    `^${only
      .split('*')
      .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
  const out = all.filter((q) => re.test(q.name));
  if (out.length === 0) throw new Error(`--only ${only} matches no query`);
  return out;
}

async function main(): Promise<number> {
  if (values.record === undefined && values.ours === undefined) throw new Error('say what to do: --record [DIR] and/or --ours URL');
  const reps = Number(values.reps);
  if (!Number.isInteger(reps) || reps < 1) throw new Error(`--reps must be a positive integer, got ${values.reps}`);
  const divergences = parseDivergences(JSON.parse(readFileSync(values.divergences, 'utf8')));
  const dataset = values.small ? SMALL_DATASET : DEFAULT_DATASET;
  const queries = selected(suite(dataset));
  if (values.record !== undefined && values.only !== undefined) throw new Error('--record records the whole suite; drop --only');
  if (!(Number(values['ours-wait']) >= 0)) throw new Error(`--ours-wait must be seconds ≥ 0, got ${values['ours-wait']}`);
  const ep = readEndpoints(values.endpoints);
  const run = `compat_${Date.now().toString(36)}`;
  say(
    `data set ${dataset.name}: ${dataset.hours} h from ${new Date(dataset.startMs).toISOString()}, ${points(dataset).length} points; ${queries.length} queries; run ${run}`,
  );
  const tsd = await openTsd({ ep, dataset, run, say });
  // Ctrl-C still stops the TSD and drops its tables
  process.once('SIGINT', () => {
    say('interrupted: cleaning up');
    void tsd.close().finally(() => process.exit(130));
  });
  try {
    let code = 0;
    if (values.record !== undefined) {
      const answers: { q: CompatQuery; answer: Answer }[] = [];
      for (const q of queries) {
        const a = await sendToTsd(tsd.url, q, say);
        const c = countAnswer(a);
        if (a.status >= 400 !== q.expectError) {
          say(`${q.name}: UNEXPECTED ${a.status} ${JSON.stringify(a.body).slice(0, 300)}`);
          code = 1;
        }
        say(`${q.name}: ${a.status}, ${c.series} series, ${c.points} points, ${a.ms.toFixed(0)} ms`);
        answers.push({ q, answer: { status: a.status, body: a.body } });
      }
      const where = writeRecording(
        values.record,
        { tsdVersion: tsd.version, recordedAt: new Date().toISOString(), dataset, points: points(dataset).length },
        answers,
      );
      say(`recorded ${answers.length} answers in ${where}`);
    }
    if (values.ours !== undefined) {
      const oursUrl = values.ours.replace(/\/+$/, '');
      if (values.produce !== undefined) await produceEvents(ep.kafkaBrokers, values.produce, events(dataset), say);
      await waitForAll(oursUrl, dataset, say, { waitMs: Number(values['ours-wait']) * 1000, who: `ours (${oursUrl})` });
      const { ok } = await compareWithOurs({ tsdUrl: tsd.url, oursUrl, queries, divergences, reps, say });
      if (!ok) code = 1;
    }
    return code;
  } finally {
    await tsd.close();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`[compat:opentsdb] FAILED: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
