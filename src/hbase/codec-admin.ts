// Pure decoding / encoding of the REST admin models: TableInfo (regions), TableSchema, TableList,
// StorageClusterVersion and StorageClusterStatus.
import { z } from 'zod';
import { fromB64, parseWith } from './codec.ts';
import type { AttributeValue, ClusterStatus, ColumnFamilySchema, Region, TableSchema, TableSchemaInput } from './types.ts';

// GET /<table>/regions →
// {"name":"t","Region":[{"id":1,"startKey":"","endKey":"","location":"host:16020","name":"t,,1.abc."}]}
const TableInfoSchema = z.object({
  name: z.string(),
  Region: z
    .array(
      z.object({
        id: z.number().int(),
        startKey: z.string().optional(),
        endKey: z.string().optional(),
        location: z.string().optional(),
        name: z.string(),
      }),
    )
    .optional(),
});

export function decodeRegions(body: Buffer | string): Region[] {
  const info = parseWith(TableInfoSchema, body, 'TableInfo');
  return (info.Region ?? []).map((r) => ({
    table: info.name,
    name: r.name,
    id: r.id,
    startKey: fromB64(r.startKey ?? '', 'startKey'),
    endKey: fromB64(r.endKey ?? '', 'endKey'),
    location: r.location ?? '',
  }));
}

// {"name":"t","ColumnSchema":[{"name":"cf","VERSIONS":"3",...}],"IS_META":"false",...}:
// descriptor attributes are flattened next to "name" (Jackson any-getter/any-setter).
const AttributeBag = z.record(z.string(), z.unknown());
const TableSchemaSchema = z.looseObject({
  name: z.string(),
  ColumnSchema: z.array(z.looseObject({ name: z.string() })).optional(),
});

function attributesOf(bag: Record<string, unknown>, skip: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(AttributeBag.parse(bag))) {
    if (skip.includes(k) || v === null || v === undefined) continue;
    out[k] = typeof v === 'string' ? v : JSON.stringify(v);
  }
  return out;
}

export function decodeTableSchema(body: Buffer | string): TableSchema {
  const s = parseWith(TableSchemaSchema, body, 'TableSchema');
  const families: ColumnFamilySchema[] = (s.ColumnSchema ?? []).map((c) => ({
    name: c.name,
    attributes: attributesOf(c, ['name']),
  }));
  return { name: s.name, families, attributes: attributesOf(s, ['name', 'ColumnSchema']) };
}

function stringifyAttributes(attrs: Readonly<Record<string, AttributeValue>> | undefined, reserved: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (reserved.includes(k)) throw new RangeError(`attribute name '${k}' is reserved`);
    out[k] = String(v);
  }
  return out;
}

/** TableSchema JSON for PUT/POST /<table>/schema. */
export function encodeTableSchema(schema: TableSchemaInput, name = schema.name): string {
  if (schema.families.length === 0) throw new RangeError('a table needs at least one column family');
  return JSON.stringify({
    ...stringifyAttributes(schema.attributes, ['name', 'ColumnSchema']),
    name,
    ColumnSchema: schema.families.map((f) => {
      if (f.name.length === 0 || f.name.includes(':')) throw new RangeError(`invalid column family name '${f.name}'`);
      return { ...stringifyAttributes(f.attributes, ['name']), name: f.name };
    }),
  });
}

// GET / → {"table":[{"name":"t1"},{"name":"ns:t2"}]}
const TableListSchema = z.object({ table: z.array(z.object({ name: z.string() })).optional() });

export function decodeTableList(body: Buffer | string): string[] {
  return (parseWith(TableListSchema, body, 'TableList').table ?? []).map((t) => t.name);
}

// GET /version/cluster → {"Version":"2.6.1-hadoop3"}
const VersionSchema = z.object({ Version: z.string() });

export function decodeClusterVersion(body: Buffer | string): string {
  return parseWith(VersionSchema, body, 'StorageClusterVersion').Version;
}

// GET /status/cluster → {"LiveNodes":[{name,startCode,requests,heapSizeMB,maxHeapSizeMB,
//   "Region":[{"name":b64,...}]}],"DeadNodes":[...],"regions":n,"requests":n,"averageLoad":x}
const num = z.number().optional();
const StatusSchema = z.object({
  LiveNodes: z
    .array(
      z.object({
        name: z.string(),
        startCode: num,
        requests: num,
        heapSizeMB: num,
        maxHeapSizeMB: num,
        Region: z
          .array(
            z.object({
              name: z.string(),
              stores: num,
              storefiles: num,
              storefileSizeMB: num,
              memStoreSizeMB: num,
              readRequestsCount: num,
              writeRequestsCount: num,
            }),
          )
          .optional(),
      }),
    )
    .optional(),
  DeadNodes: z.array(z.union([z.string(), z.object({ name: z.string() })])).optional(),
  regions: num,
  requests: num,
  averageLoad: num,
});

export function decodeClusterStatus(body: Buffer | string): ClusterStatus {
  const s = parseWith(StatusSchema, body, 'StorageClusterStatus');
  return {
    liveNodes: (s.LiveNodes ?? []).map((n) => ({
      name: n.name,
      startCode: n.startCode ?? 0,
      requests: n.requests ?? 0,
      heapSizeMB: n.heapSizeMB ?? 0,
      maxHeapSizeMB: n.maxHeapSizeMB ?? 0,
      regions: (n.Region ?? []).map((r) => ({
        name: fromB64(r.name, 'region name'),
        stores: r.stores ?? 0,
        storefiles: r.storefiles ?? 0,
        storefileSizeMB: r.storefileSizeMB ?? 0,
        memStoreSizeMB: r.memStoreSizeMB ?? 0,
        readRequestsCount: r.readRequestsCount ?? 0,
        writeRequestsCount: r.writeRequestsCount ?? 0,
      })),
    })),
    deadNodes: (s.DeadNodes ?? []).map((d) => (typeof d === 'string' ? d : d.name)),
    regions: s.regions ?? 0,
    requests: s.requests ?? 0,
    averageLoad: s.averageLoad ?? 0,
  };
}
