// Shared by the compute-*.test.ts files: building views and specs the way OpenTSDB's tests do.
import assert from 'node:assert/strict';

import { getAggregator } from '../../../src/series-compute/aggregators.ts';
import type { DownsampleSpec } from '../../../src/series-compute/downsampler.ts';
import { SpanView } from '../../../src/series-compute/views.ts';
import type { SeekableView } from '../../../src/series-compute/views.ts';
import type { AggregatorName, FillPolicy, IntervalUnit } from '../../../src/series-language/types.ts';

export function view(points: readonly (readonly [number, number])[]): SpanView {
  return new SpanView(
    points.map((p) => p[0]),
    points.map((p) => p[1]),
  );
}

export function drainView(v: SeekableView): [number, number][] {
  const out: [number, number][] = [];
  while (v.hasNext()) {
    const p = v.next();
    out.push([p.ts, p.value]);
  }
  return out;
}

const UNIT_MS: Record<IntervalUnit, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3600_000,
  d: 86_400_000,
  w: 604_800_000,
  n: 2_592_000_000,
  y: 31_536_000_000,
};

/** DownsamplingSpecification("<count><unit>-<agg>-<fill>"), in UTC. */
export function spec(count: number, unit: IntervalUnit, agg: AggregatorName, fill: FillPolicy): DownsampleSpec {
  return { all: false, calendar: false, intervalMs: count * UNIT_MS[unit], count, unit, timezone: 'UTC', fn: getAggregator(agg).run, fill };
}

/** The calendar form of a spec ("<count><unit>c-…") in `timezone`. */
export function calendarSpec(s: DownsampleSpec, timezone: string): DownsampleSpec {
  return { ...s, calendar: true, timezone };
}

export function allSpec(agg: AggregatorName, fill: FillPolicy): DownsampleSpec {
  return { all: true, calendar: false, intervalMs: 0, count: 0, unit: 'ms', timezone: 'UTC', fn: getAggregator(agg).run, fill };
}

/** [ts, value] lists equal, values within relative 1e-9 (NaN equals NaN, null equals null). */
export function assertPoints(actual: readonly (readonly [number, number | null])[], expected: readonly (readonly [number, number | null])[]): void {
  assert.deepEqual(
    actual.map((p) => p[0]),
    expected.map((p) => p[0]),
    'timestamps',
  );
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i]?.[1];
    const e = expected[i]?.[1];
    if (e === null || e === undefined || a === null || a === undefined) {
      assert.equal(a, e, `value at ${i}`);
    } else if (Number.isNaN(e)) {
      assert.ok(Number.isNaN(a), `value at ${i}: ${a} is not NaN`);
    } else {
      assert.ok(Math.abs(a - e) <= 1e-9 * Math.max(1, Math.abs(e)), `value at ${i}: ${a} ≉ ${e}`);
    }
  }
}
