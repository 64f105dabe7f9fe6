// The `--set` pairs (config keys, as `tsingest --set` takes them) that point a service at a stack and
// at a run's own, uniquely named tables and topics. Shared by the benches and the integration
// harness (test/support/service-harness.ts), which both make such throwaway tables for each run.
import type { StackEndpoints } from './config.ts';

export interface RunNames {
  readonly data: string;
  readonly index: string;
  readonly rollup: string;
  readonly meta: string;
  readonly topic: string;
  readonly dlq: string;
}

/** kafka.brokers, hbase.restUrl and hbase.adminCommand of `ep`. */
export function endpointSets(ep: Pick<StackEndpoints, 'kafkaBrokers' | 'restUrl' | 'adminCommand'>): string[] {
  return [`kafka.brokers=${ep.kafkaBrokers}`, `hbase.restUrl=${ep.restUrl}`, `hbase.adminCommand=${JSON.stringify(ep.adminCommand)}`];
}

/** The run's topic and DLQ, and its four tables, uncompressed (throwaway data: no codec to wait for). */
export function runSets(names: RunNames): string[] {
  return [
    `kafka.topic=${names.topic}`,
    `kafka.dlqTopic=${names.dlq}`,
    ...(['data', 'index', 'rollup', 'meta'] as const).flatMap((role) => [`tables.${role}.name=${names[role]}`, `tables.${role}.compression=NONE`]),
  ];
}
