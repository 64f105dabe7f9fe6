// Pure: per-family storage settings: bloom filter, compression (and whether the codec probe could use
// the codec), data block encoding; and the codec probe's own failure.
import type { ClusterFacts, TableFacts } from '../facts.ts';
import { book, type Finding } from '../finding.ts';

const attr = (a: Readonly<Record<string, string>>, k: string): string => (a[k] ?? '').toUpperCase();

/** What the codec probe's answer stands for. */
const PROBE_SCOPE =
  "the probe runs HBase's CompressionTest in the admin tool's JVM (hbase.adminCommand), so it speaks for the servers only where the tool runs with their HBase installation (jars, native libraries, hbase-site.xml)";

/** Said only when a codec probe was asked for and failed: storage.codec-missing was not checked. */
export function codecProbeFindings(cluster: Pick<ClusterFacts, 'codecProbeFailure'>): Finding[] {
  if (cluster.codecProbeFailure === undefined) return [];
  return [
    {
      rule: 'storage.codec-probe',
      severity: 'info',
      subject: 'cluster',
      measured: `the codec probe failed, so storage.codec-missing was not checked: ${cluster.codecProbeFailure}`,
      threshold: `a probe that answers; ${PROBE_SCOPE}`,
      source: book('compression'),
      fix: "make hbase.adminCommand (env TSI_ADMIN_COMMAND) run the admin tool with the servers' HBase installation, or pass --no-codec-probe to skip the probe",
    },
  ];
}

export function storageFindings(t: TableFacts, cluster: Pick<ClusterFacts, 'codecsUsable'>): Finding[] {
  const out: Finding[] = [];
  for (const f of t.schema.families) {
    const subject = `table ${t.name} family ${f.name}`;
    const bloom = attr(f.attributes, 'BLOOMFILTER');
    if (bloom === 'NONE') {
      out.push({
        rule: 'storage.bloom',
        severity: 'warn',
        subject,
        measured: 'BLOOMFILTER NONE',
        threshold: 'ROW (the default since HBase 0.96): a get reads only the store files that may hold the row',
        source: book('schema.bloom'),
        fix: `alter '${t.name}', {NAME => '${f.name}', BLOOMFILTER => 'ROW'} (takes effect as store files are rewritten)`,
      });
    }
    const codec = attr(f.attributes, 'COMPRESSION');
    if (codec === '' || codec === 'NONE') {
      out.push({
        rule: 'storage.compression',
        severity: 'info',
        subject,
        measured: 'COMPRESSION NONE',
        threshold: 'a block codec (SNAPPY, LZ4 or ZSTD) usually pays for itself on time-series cells',
        source: book('compression'),
        fix: `alter '${t.name}', {NAME => '${f.name}', COMPRESSION => 'SNAPPY'} after checking the servers can load it (hbase org.apache.hadoop.hbase.util.CompressionTest)`,
      });
    } else if (cluster.codecsUsable !== undefined && !cluster.codecsUsable.includes(codec)) {
      out.push({
        rule: 'storage.codec-missing',
        severity: 'error',
        subject,
        measured: `COMPRESSION ${codec}, which the codec probe could not use (usable there: ${cluster.codecsUsable.join(', ') || 'none'})`,
        threshold: `the codec must load on every region server, or its regions fail to open (and the master refuses to create or alter a table with it); ${PROBE_SCOPE}`,
        source: book('compression'),
        fix: `install the codec (its jar or native library) on every region server, or alter the family to a usable codec`,
      });
    }
    const enc = attr(f.attributes, 'DATA_BLOCK_ENCODING');
    if (enc === '' || enc === 'NONE') {
      out.push({
        rule: 'storage.block-encoding',
        severity: 'info',
        subject,
        measured: 'DATA_BLOCK_ENCODING NONE',
        threshold: 'FAST_DIFF or ROW_INDEX_V1 when rows share long key prefixes (salt ‖ id ‖ time)',
        source: book('data.block.encoding.types'),
        fix: `alter '${t.name}', {NAME => '${f.name}', DATA_BLOCK_ENCODING => 'FAST_DIFF'}`,
      });
    }
  }
  return out;
}
