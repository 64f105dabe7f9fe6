/**
 * Metrics of the schema doctor the service runs on its own tables (docs/DOCTOR.md): findings of the
 * last completed run by severity, when that run ended, and runs by outcome. Created on the service's
 * prom-client `Registry`; names are fixed like METRIC_NAMES.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { DoctorOutcome } from '../doctor/scheduler.ts';

export const DOCTOR_METRIC_NAMES = {
  findings: 'tsingest_doctor_findings',
  lastRun: 'tsingest_doctor_last_run_timestamp_seconds',
  runs: 'tsingest_doctor_runs_total',
} as const;

const SEVERITIES = ['error', 'warn', 'info'] as const;

export interface DoctorMetrics {
  readonly findings: Gauge<'severity'>;
  readonly lastRun: Gauge;
  readonly runs: Counter<'outcome'>;
}

export function createDoctorMetrics(registry: Registry): DoctorMetrics {
  const registers = [registry];
  const m: DoctorMetrics = {
    findings: new Gauge({
      name: DOCTOR_METRIC_NAMES.findings,
      help: "Findings of the last completed schema doctor run on the service's tables, by severity (error | warn | info)",
      labelNames: ['severity'] as const,
      registers,
    }),
    lastRun: new Gauge({ name: DOCTOR_METRIC_NAMES.lastRun, help: 'When the last completed schema doctor run ended (Unix seconds; 0: none yet)', registers }),
    runs: new Counter({
      name: DOCTOR_METRIC_NAMES.runs,
      help: 'Schema doctor runs of the service by outcome (ok | failed)',
      labelNames: ['outcome'] as const,
      registers,
    }),
  };
  m.lastRun.set(0);
  for (const outcome of ['ok', 'failed']) m.runs.inc({ outcome }, 0);
  return m;
}

/** Records one run: every run counts; a completed one sets the findings and the timestamp. */
export function recordDoctorRun(m: DoctorMetrics, o: DoctorOutcome): void {
  m.runs.inc({ outcome: o.outcome });
  if (o.outcome !== 'ok') return;
  for (const severity of SEVERITIES) m.findings.set({ severity }, o.report.counts[severity]);
  m.lastRun.set(o.report.at / 1000);
}
