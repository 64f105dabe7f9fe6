// The skew phase of `npm run bench`: fresh tables for spreading on, then off (same workload, same
// backlog range), latest-100 on the "on" tables, then the unsalted tables; everything it creates is
// dropped at the end (unless --keep).
import type { HBaseRestClient } from '../../../src/hbase/index.ts';
import { JavaTableAdmin, planTables } from '../../../src/admin/index.ts';
import type { Config } from '../../../src/runtime/index.ts';
import { benchNames, cleanUp, createTables, createTopics, type BenchNames } from './setup.ts';
import { latestFigures, runMode, unsaltedIndexSplits, unsaltedSkew, type SpreadContext, type SpreadFigures } from './spread.ts';

const TAGS = ['site', 'rack'];
const PARTITIONS = 8;

export type ConfigFor = (n: BenchNames, tags: readonly string[]) => { cfg: Config; env: NodeJS.ProcessEnv; sets: readonly string[] };

export async function skewPhase(ctx: SpreadContext, configFor: ConfigFor, buckets: number, keep: boolean): Promise<SpreadFigures> {
  const idList = Array.from({ length: ctx.ids }, (_v, i) => `sensor-${String(i).padStart(5, '0')}`);
  const created: BenchNames[] = [];
  const setupMode = async (mode: 'on' | 'off'): Promise<{ n: BenchNames; c: ReturnType<ConfigFor>; sets: string[] }> => {
    const n = benchNames();
    created.push(n);
    const base = configFor(n, TAGS);
    const sets = [...base.sets, `keys.spread.auto=${mode === 'on'}`];
    const c = { ...base, cfg: { ...base.cfg, keys: { ...base.cfg.keys, spread: { ...base.cfg.keys.spread, auto: mode === 'on' } } }, sets };
    await createTables(c.cfg, n, { admin: new JavaTableAdmin({ command: c.cfg.hbase.adminCommand }), rest: ctx.rest }, { ids: idList, regions: buckets });
    await createTopics(ctx.kafka, n, PARTITIONS);
    return { n, c, sets };
  };
  try {
    const on = await setupMode('on');
    const onRun = await runMode(ctx, { cfg: on.c.cfg, env: on.c.env, sets: on.sets, dataTable: on.n.data, indexTable: on.n.index, topic: on.n.topic }, 'on');
    const latest = await latestFigures(ctx, on.c.cfg);
    ctx.say(
      `[skew] latest-100 p50/p99: ${latest.spreadId} (K ${latest.spreadK}) ${latest.spread.p50.toFixed(1)}/${latest.spread.p99.toFixed(1)} ms, ${latest.plainId} ${latest.plain.p50.toFixed(1)}/${latest.plain.p99.toFixed(1)} ms`,
    );
    const off = await setupMode('off');
    const offRun = await runMode(
      ctx,
      { cfg: off.c.cfg, env: off.c.env, sets: off.sets, dataTable: off.n.data, indexTable: off.n.index, topic: off.n.topic },
      'off',
      { from: onRun.backlogFrom, to: onRun.backlogTo },
    );
    // Unsalted: the "off" run's unsalted data table (createTables splits it on id prefixes behind salt
    // byte 0) and an index table split on (tag, value) prefixes.
    const plannedData = planTables(off.c.cfg).find((p) => p.role === 'data');
    if (plannedData === undefined) throw new Error('no data table planned');
    const indexTable = `${off.n.run}_unsalted_index`;
    await new JavaTableAdmin({ command: off.c.cfg.hbase.adminCommand }).ensureTable({
      table: indexTable,
      family: off.c.cfg.tables.index.family,
      splits: unsaltedIndexSplits(ctx.ids, buckets),
      ...(plannedData.request.familyAttrs === undefined ? {} : { familyAttrs: plannedData.request.familyAttrs }),
    });
    try {
      const unsalted = await unsaltedSkew(
        ctx,
        off.c.cfg,
        { data: off.n.unsalted, index: indexTable },
        { maxRows: off.c.cfg.batch.maxRows, maxBytes: off.c.cfg.batch.maxBytes, concurrency: off.c.cfg.hbase.concurrency },
      );
      return { events: ctx.events, rate: ctx.rate, drainEvents: ctx.drainEvents, on: onRun.figures, off: offRun.figures, unsalted, latest };
    } finally {
      if (!keep) await dropTable(ctx.rest, indexTable);
    }
  } finally {
    if (keep) ctx.say(`--keep: leaving ${created.map((n) => `${n.run}_*`).join(', ')}`);
    else for (const n of created) await cleanUp(ctx.kafka, n, ctx.rest, ctx.say);
  }
}

async function dropTable(rest: HBaseRestClient, table: string): Promise<void> {
  await rest.deleteTable(table, { ignoreMissing: true, deadlineMs: 120_000 }).catch(() => undefined);
}
