// Pure: the row a window's content is stored as (window-content.ts), at its key and its size's family.
import { rollupWindowFamily, type RollupKeyParts } from '../keys/index.ts';
import type { PutRow } from './fold.ts';
import { indexOfSize } from './plan.ts';
import type { RollupSettings } from './rollup-settings.ts';
import type { WindowContent } from './window-content.ts';

/** The row of one window's content, every cell at `timestamp`; undefined when the window holds no data. */
export function windowRow(
  s: Pick<RollupSettings, 'windows' | 'keyspace'>,
  parts: RollupKeyParts,
  content: WindowContent,
  timestamp: number,
): PutRow | undefined {
  const i = indexOfSize(s.windows, parts.windowSec);
  const finerMs = i > 0 ? s.windows[i - 1]?.ms : undefined;
  return content.putRow(s.keyspace.rollupKey(parts), rollupWindowFamily(parts.windowSec), timestamp, {
    start: parts.windowStart,
    finerMs,
    sizeSec: parts.windowSec,
  });
}
