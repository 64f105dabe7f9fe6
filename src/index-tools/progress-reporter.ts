// Shows a ProgressTracker while a run works: a bar redrawn in place on a TTY, else one log line every
// few seconds (stderr in the CLI). Timers are unref'd, so they never keep the process alive.
import type { ProgressSink } from '../toolkit/progress-math.ts';
import { formatProgress, formatProgressBar, type ProgressSnapshot } from './index-progress.ts';

export interface ProgressReporterOptions {
  readonly label: string;
  /** TTY redraw interval (default 250 ms). */
  readonly ttyEveryMs?: number;
  /** Log line interval without a TTY (default 5 s). */
  readonly logEveryMs?: number;
}

export interface ProgressReporter {
  /** Draws the final state (and ends the bar's line). */
  stop(): void;
}

export function startProgressReporter(sink: ProgressSink, snapshot: () => ProgressSnapshot, opts: ProgressReporterOptions): ProgressReporter {
  const draw = (): void => {
    if (sink.isTTY === true) sink.write(`\r\x1b[2K${opts.label} ${formatProgressBar(snapshot())}`);
    else sink.write(`${opts.label}: ${formatProgress(snapshot())}\n`);
  };
  const timer = setInterval(draw, sink.isTTY === true ? (opts.ttyEveryMs ?? 250) : (opts.logEveryMs ?? 5000));
  timer.unref();
  let stopped = false;
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      draw();
      if (sink.isTTY === true) sink.write('\n');
    },
  };
}
