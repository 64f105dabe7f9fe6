// The public door of src/series-query/ (docs/ARCHITECTURE.md, "Public doors"): the answer memo and the
// rollup tier the wiring builds;
// the request's weight (the read client's gate) and the reading of a Server-Timing header (the live
// benchmark reports our phases from it).
export { AnswerMemo } from './answer-memo.ts';
export { parseServerTiming } from './phase-clock.ts';
export type { RollupTier } from './plan.ts';
export { currentRequestWeight } from './request-weight.ts';
