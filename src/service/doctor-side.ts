// The schema doctor inside the service (docs/DOCTOR.md): checkCluster on the service's own tables
// (data, index, rollup, meta) shortly after start and then every doctor.everyMs, through the read
// side's HBase client, so it never queues behind ingest writes. Write spread is measured since the
// previous run (like `tsingest doctor --since`). A failed run is logged and shown on /ui; it never
// touches ingest or readiness.
import type { Logger } from 'pino';
import { HBASE_DEFAULTS, checkCluster, previousWritesOf } from '../doctor/check.ts';
import { writeCounters } from '../doctor/gather.ts';
import { DOCTOR_OFF, DoctorScheduler, type DoctorSnapshot } from '../doctor/scheduler.ts';
import type { HBaseRestClient } from '../hbase/index.ts';
import { createDoctorMetrics, recordDoctorRun } from '../metrics/doctor-metrics.ts';
import type { Metrics } from '../metrics/ingest-metrics.ts';
import type { Config } from '../runtime/config.ts';

/** The first run waits this long after start (or doctor.everyMs when shorter): start-up comes first. */
export const DOCTOR_FIRST_RUN_MS = 5000;

export interface ServiceDoctor {
  snapshot(): DoctorSnapshot;
  /** cancels the timer and abandons a run in flight; idempotent */
  stop(): void;
}

export interface DoctorOptions {
  readonly cfg: Config;
  /** the service's own, in the order the doctor checks them (Tables.names) */
  readonly tables: readonly string[];
  readonly hbase: HBaseRestClient;
  readonly metrics: Pick<Metrics, 'registry'>;
  readonly log: Logger;
}

export function startDoctor(o: DoctorOptions): ServiceDoctor {
  const { cfg, tables, hbase, metrics, log } = o;
  const { everyMs, sampleRows } = cfg.doctor;
  if (everyMs === 0) return { snapshot: () => DOCTOR_OFF, stop: () => undefined };
  const m = createDoctorMetrics(metrics.registry);
  const settings = {
    ...HBASE_DEFAULTS,
    source: `HBase defaults: flush size ${HBASE_DEFAULTS.memstoreFlushSizeMB} MB, memstore fraction ${HBASE_DEFAULTS.globalMemstoreFraction}`,
  };
  let previous: Map<string, Map<string, number>> | undefined;
  const scheduler = new DoctorScheduler({
    everyMs,
    firstDelayMs: Math.min(DOCTOR_FIRST_RUN_MS, everyMs),
    check: async () => {
      const result = await checkCluster(hbase, {
        tables,
        sampleRowsPerRegion: sampleRows,
        settings,
        ...(previous === undefined ? {} : { previousWrites: previous }),
      });
      previous = previousWritesOf(writeCounters(result.facts));
      return result;
    },
    onRun: (o) => {
      recordDoctorRun(m, o);
      if (o.outcome === 'failed') log.warn({ err: o.err }, 'schema doctor run failed (shown on /ui; the next run tries again)');
      else log.info({ counts: o.report.counts, tables, ms: o.run.finishedAt - o.run.startedAt }, 'schema doctor run');
    },
  });
  scheduler.start();
  return {
    snapshot: () => scheduler.snapshot(),
    stop: () => {
      scheduler.stop();
    },
  };
}
