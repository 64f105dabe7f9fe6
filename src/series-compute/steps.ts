// Pure: the computation as steps. The long loops (the aggregation iterator, the cut to the query
// range) are generators that yield every STEP_WORK units of work (a unit: one series looked at for
// one output point), so a caller can give the event loop back between two steps (src/toolkit/slices.ts
// runSliced, under the query's deadline); runAtOnce drives them to the end in one go.

/** Units of work between two yields: small enough that a step takes about a millisecond (a filling downsampler's point costs µs). */
export const STEP_WORK = 512;

/** Drives a stepped computation to its result at once. */
export function runAtOnce<T>(steps: Generator<unknown, T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done === true) return r.value;
  }
}
