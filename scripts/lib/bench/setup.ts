// Benchmark resources: fresh, uniquely named tables (pre-split through the admin port) and topics,
// and their removal at the end.
import type { Kafka } from 'kafkajs';
import type { Config } from '../../../src/runtime/index.ts';
import { applyTables, planTables, type AppliedTable, type TableAdminPort } from '../../../src/admin/index.ts';
import type { HBaseRestClient } from '../../../src/hbase/index.ts';
import { planIdPrefixSplits } from '../../../src/keys/index.ts';
import { deleteRunTopics } from '../stack/topics.ts';

export interface BenchNames {
  readonly run: string;
  readonly data: string;
  readonly index: string;
  readonly rollup: string;
  readonly meta: string;
  readonly ceiling: string;
  readonly unsalted: string;
  readonly topic: string;
  readonly dlq: string;
  readonly group: string;
}

export function benchNames(): BenchNames {
  const run = `bench_${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6).toString(36)}`;
  return {
    run,
    data: `${run}_data`,
    index: `${run}_index`,
    rollup: `${run}_rollup`,
    meta: `${run}_meta`,
    ceiling: `${run}_ceiling`,
    unsalted: `${run}_unsalted`,
    topic: `${run}-events`,
    dlq: `${run}-dlq`,
    group: `${run}-group`,
  };
}

export interface CreatedTables {
  readonly applied: readonly AppliedTable[];
  readonly compression: string;
  readonly unsaltedSplits: number;
}

/** Service tables via applyTables; the ceiling table with the data table's exact plan; the unsalted one with id-prefix splits. */
export async function createTables(
  cfg: Config,
  n: BenchNames,
  ports: { readonly admin: TableAdminPort; readonly rest: HBaseRestClient },
  split: { readonly ids: readonly string[]; readonly regions: number },
): Promise<CreatedTables> {
  const { admin, rest } = ports;
  const { ids, regions } = split;
  const applied = await applyTables(cfg, admin, rest);
  const data = applied.find((a) => a.role === 'data');
  if (data === undefined || !data.splitsVerified) throw new Error(`data table ${n.data}: pre-split regions not as planned`);
  const compression = data.compression;
  const plannedData = planTables(cfg).find((p) => p.role === 'data');
  if (plannedData === undefined) throw new Error('no data table planned');
  const familyAttrs = { ...plannedData.request.familyAttrs, COMPRESSION: compression };
  await admin.ensureTable({ ...plannedData.request, table: n.ceiling, familyAttrs });
  // B = 1: every key starts with salt byte 0x00, then the id; split on id prefixes behind that byte.
  const splits = planIdPrefixSplits(ids, regions).map((s) => Buffer.concat([Buffer.from([0x00]), s]));
  await admin.ensureTable({ table: n.unsalted, family: cfg.tables.data.family, splits, familyAttrs });
  return { applied, compression, unsaltedSplits: splits.length };
}

export async function createTopics(kafka: Kafka, n: BenchNames, partitions: number): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.createTopics({
      topics: [
        { topic: n.topic, numPartitions: partitions },
        { topic: n.dlq, numPartitions: 1 },
      ],
      waitForLeaders: true,
    });
  } finally {
    await admin.disconnect();
  }
}

export async function cleanUp(kafka: Kafka, n: BenchNames, rest: HBaseRestClient, say: (m: string) => void): Promise<void> {
  for (const t of [n.data, n.index, n.rollup, n.meta, n.ceiling, n.unsalted]) {
    await rest.deleteTable(t, { ignoreMissing: true, deadlineMs: 120_000 }).catch((err: unknown) => {
      say(`could not drop ${t}: ${String(err)}`);
    });
  }
  const admin = kafka.admin();
  await admin.connect();
  try {
    await deleteRunTopics(admin, [n.topic, n.dlq], (err: unknown) => {
      say(`could not delete topics: ${String(err)}`);
    });
    await admin.deleteGroups([n.group]).catch(() => undefined);
  } finally {
    await admin.disconnect();
  }
}
