import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateEvents } from '../../../src/demo/generate.ts';
import { ratioColour, renderHeatmapSvg } from '../../../src/whatif/heatmap-svg.ts';
import { candidateGrid } from '../../../src/whatif/layouts.ts';
import { predictAll, type Prediction } from '../../../src/whatif/predict.ts';
import { recommend } from '../../../src/whatif/recommend.ts';
import { renderJson, renderText, type WhatIfReport } from '../../../src/whatif/whatif-render.ts';

const sample = [...generateEvents({ count: 20_000, ids: 500, startTs: 1_700_000_000_000, stepMs: 1, seed: 5, racks: 10 })];
const grid = candidateGrid(
  { buckets: [16], formats: ['binary', 'printable'], spread: [false, true], indexSaltModes: ['entry', 'value'], unsalted: true },
  { kind: 'salted', buckets: 16, format: 'binary', spread: false, indexSaltMode: 'entry' },
);
const predictions = predictAll(grid, sample, { indexTags: ['site', 'rack'], policy: { minShare: 0.003, kFactor: 64, maxK: null } });

/** A prediction with these skews and read scans (idScans 1 unless given). */
function fake(name: string, f: { readonly dataSkew: number; readonly indexSkew: number; readonly tagScans: number; readonly idScans?: number }): Prediction {
  const { dataSkew, indexSkew, tagScans, idScans = 1 } = f;
  const t = { regions: 4, rows: 4, perRegion: [1, 1, 1, 1], skew: dataSkew, idleRegions: 0, hottest: { region: 0, share: 0.25, topIds: [] }, avgKeyBytes: 20 };
  return {
    name,
    candidate: { kind: 'unsalted', regions: 4 },
    data: t,
    index: { ...t, skew: indexSkew },
    spreadIds: [],
    idReadScans: { mean: idScans, max: idScans },
    tagReadScans: tagScans,
  };
}

void test('the recommendation keeps writes even first, then takes the cheapest reads', () => {
  const r = recommend(predictions);
  const pick = predictions[r.index] as Prediction;
  assert.match(pick.name, /spread on index entry/);
  assert.equal(pick.candidate.kind === 'salted' && pick.candidate.format, 'binary', 'shorter keys win over printable at the same spread');
  assert.ok(pick.data.skew <= 1.25);
  // Fewer tag-read scans win only among layouts whose data and index skew are both acceptable.
  assert.equal(
    recommend([
      fake('a', { dataSkew: 1.1, indexSkew: 1.1, tagScans: 16 }),
      fake('b', { dataSkew: 1.1, indexSkew: 3, tagScans: 1 }),
      fake('c', { dataSkew: 3, indexSkew: 1, tagScans: 1 }),
    ]).name,
    'a',
  );
  assert.equal(recommend([fake('a', { dataSkew: 1.1, indexSkew: 1.1, tagScans: 16 }), fake('b', { dataSkew: 1.2, indexSkew: 1.2, tagScans: 1 })]).name, 'b');
  assert.equal(
    recommend([fake('a', { dataSkew: 1.1, indexSkew: 1.1, tagScans: 1, idScans: 3 }), fake('b', { dataSkew: 1.1, indexSkew: 1.1, tagScans: 1, idScans: 1 })])
      .name,
    'b',
    'then fewer id-read scans',
  );
  assert.equal(
    recommend([fake('a', { dataSkew: 3, indexSkew: 3, tagScans: 1 }), fake('b', { dataSkew: 3, indexSkew: 3, tagScans: 1 })]).name,
    'a',
    'a tie keeps the current layout',
  );
  assert.throws(() => recommend([]));
});

void test('the text table names every layout, marks the current and the recommended one; JSON carries the regions', () => {
  const report: WhatIfReport = {
    sample: { events: sample.length, rejected: 2, ids: 500, from: 'f.jsonl', topIds: [['sensor-00000', 3600]] },
    indexTags: ['site', 'rack'],
    predictions,
    recommendation: recommend(predictions),
  };
  const text = renderText(report).join('\n');
  for (const p of predictions) assert.ok(text.includes(p.name), p.name);
  assert.match(text, /\(current\) B16 binary spread off index entry/);
  assert.match(text, new RegExp(`→ .*${report.recommendation.name}`));
  assert.match(text, /2 the service would dead-letter/);
  assert.match(text, /sensor-00000 18\.0 %/);
  const json = JSON.parse(renderJson(report)) as WhatIfReport;
  assert.equal(json.predictions[0]?.data.perRegion.length, 16);
});

void test('the heatmap has a cell per region of every table row, with the counts in its tooltip', () => {
  const svg = renderHeatmapSvg(predictions, 0);
  const cells = predictions.reduce((n, p) => n + p.data.regions + (p.index?.regions ?? 0), 0);
  assert.equal(svg.match(/height="20" fill=/g)?.length, cells);
  assert.match(svg, /^<svg xmlns/);
  assert.ok(svg.includes(`region 0: ${predictions[0]?.data.perRegion[0]} rows`));
  assert.equal(ratioColour(0, 3), '#ffffff');
  assert.notEqual(ratioColour(1, 3), ratioColour(3, 3));
  assert.equal(ratioColour(3, 3), '#7f0000');
});
