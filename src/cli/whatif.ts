// tsingest whatif: a sample of events (a JSON-lines file, or a topic's first records by time) against
// candidate key layouts: the write spread each would give (skew, hottest region, idle regions), its
// read fan-out and key size; a comparison table, an SVG heatmap and a recommendation (docs/DOCTOR.md).
import { writeFileSync } from 'node:fs';
import pino from 'pino';
import { eventLimitsFor, parseEvent, resolveFieldMapping } from '../events/index.ts';
import { INDEX_SALT_MODES, KEY_FORMATS, MAX_BUCKETS, MIN_BUCKETS, type IndexSaltMode, type KeyFormat } from '../keys/index.ts';
import type { Config } from '../runtime/config.ts';
import { createLogger } from '../runtime/logger.ts';
import { renderHeatmapSvg } from '../whatif/heatmap-svg.ts';
import { candidateGrid, type Candidate } from '../whatif/layouts.ts';
import { predictAll } from '../whatif/predict.ts';
import { recommend } from '../whatif/recommend.ts';
import { renderJson, renderText, type WhatIfReport } from '../whatif/whatif-render.ts';
import { linesOf, sampleOf, topIdsOf, type Sample } from '../whatif/sample.ts';
import { UsageError, configOf, intFlag, out, parseCommand, readFileFlag, stringFlag } from './args.ts';
import { readTopic } from './whatif-topic.ts';

export const WHATIF_USAGE =
  'tsingest whatif --file F | --topic T [--max N] [--buckets 8,16,…] [--formats binary,printable] [--spread on,off] [--index-salt entry,value] [--index-tags a,b] [--no-unsalted] [--svg FILE] [--json]';

const DEFAULT_MAX = 200_000;
const DEFAULT_SVG = 'whatif-heatmap.svg';

function listFlag<T extends string>(name: string, raw: string | undefined, allowed: readonly T[], fallback: readonly T[]): T[] {
  if (raw === undefined) return [...fallback];
  const items = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const bad = items.find((s) => !(allowed as readonly string[]).includes(s));
  if (bad !== undefined || items.length === 0) throw new UsageError(`--${name} takes a comma-separated list of ${allowed.join(', ')}; got "${raw}"`);
  return items as T[];
}

function bucketsFlag(raw: string | undefined, fallback: number): number[] {
  if (raw === undefined) return [fallback];
  return raw.split(',').map((s) => {
    const n = Number(s.trim());
    if (!Number.isInteger(n) || n < MIN_BUCKETS || n > MAX_BUCKETS)
      throw new UsageError(`--buckets takes integers in ${MIN_BUCKETS} … ${MAX_BUCKETS}; got "${s}"`);
    return n;
  });
}

function currentLayout(cfg: Config): Candidate {
  return { kind: 'salted', buckets: cfg.keys.saltBuckets, format: cfg.keys.format, spread: cfg.keys.spread.auto, indexSaltMode: cfg.index.saltMode };
}

async function readSample(cfg: Config, file: string | undefined, topic: string | undefined, max: number): Promise<{ sample: Sample; from: string }> {
  const mapping = resolveFieldMapping(cfg.events.mapping);
  const limits = eventLimitsFor(cfg.events)();
  const parse = (raw: Uint8Array): ReturnType<typeof parseEvent> => parseEvent(raw, mapping, limits);
  if (file !== undefined) {
    const text = readFileFlag(file);
    return { sample: sampleOf(linesOf(text), parse, max), from: file === '-' ? 'stdin' : file };
  }
  const log = createLogger({ level: 'warn', destination: pino.destination({ dest: 2, sync: true }) });
  const values = await readTopic(cfg, log, topic ?? cfg.kafka.topic, max);
  return { sample: sampleOf(values, parse, max), from: `topic ${topic ?? cfg.kafka.topic} (first ${values.length} records by time)` };
}

export async function whatifCommand(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseCommand(argv, {
    file: { type: 'string' },
    topic: { type: 'string' },
    max: { type: 'string' },
    buckets: { type: 'string' },
    formats: { type: 'string' },
    spread: { type: 'string' },
    'index-salt': { type: 'string' },
    'index-tags': { type: 'string' },
    'no-unsalted': { type: 'boolean' },
    svg: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (positionals.length > 0) throw new UsageError(`usage: ${WHATIF_USAGE}`);
  const file = stringFlag(values, 'file');
  const topic = stringFlag(values, 'topic');
  if ((file === undefined) === (topic === undefined)) throw new UsageError('give one of --file FILE or --topic TOPIC');
  const max = intFlag('max', stringFlag(values, 'max'), DEFAULT_MAX);
  if (max < 1) throw new UsageError('--max must be at least 1');
  const cfg = configOf(values);
  const tagsRaw = stringFlag(values, 'index-tags');
  const indexTags =
    tagsRaw === undefined
      ? cfg.index.tags
      : tagsRaw
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== '');
  const spread = listFlag('spread', stringFlag(values, 'spread'), ['on', 'off'] as const, ['off', 'on']).map((s) => s === 'on');
  const candidates = candidateGrid(
    {
      buckets: bucketsFlag(stringFlag(values, 'buckets'), cfg.keys.saltBuckets),
      formats: listFlag<KeyFormat>('formats', stringFlag(values, 'formats'), KEY_FORMATS, [cfg.keys.format]),
      spread,
      indexSaltModes: listFlag<IndexSaltMode>(
        'index-salt',
        stringFlag(values, 'index-salt'),
        INDEX_SALT_MODES,
        indexTags.length > 0 ? INDEX_SALT_MODES : [cfg.index.saltMode],
      ),
      unsalted: values['no-unsalted'] !== true,
    },
    currentLayout(cfg),
  );

  const { sample, from } = await readSample(cfg, file, topic, max);
  if (sample.events.length === 0) throw new UsageError(`no events to sample in ${from}${sample.rejected > 0 ? ` (${sample.rejected} rejected)` : ''}`);
  const predictions = predictAll(candidates, sample.events, { indexTags, policy: cfg.keys.spread });
  const report: WhatIfReport = {
    sample: {
      events: sample.events.length,
      rejected: sample.rejected,
      ids: new Set(sample.events.map((e) => e.id)).size,
      from,
      topIds: topIdsOf(sample.events, 5),
    },
    indexTags,
    predictions,
    recommendation: recommend(predictions),
  };
  const svg = stringFlag(values, 'svg') ?? DEFAULT_SVG;
  writeFileSync(svg, renderHeatmapSvg(predictions, report.recommendation.index));
  if (values['json'] === true) out(renderJson(report));
  else for (const line of [...renderText(report), `heatmap: ${svg}`]) out(line);
  return 0;
}
