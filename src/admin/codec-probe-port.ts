// The codec-probe port: which compression codecs an HBase installation can use. Kept apart from
// TableAdminPort (which administers tables); java-admin.ts implements both with the same tool, whose
// `codecs` op runs HBase's CompressionTest in the tool's own JVM. Its answer is the region servers'
// only where the tool runs with the servers' installation (jars, native libraries, hbase-site.xml).

/** One of HBase's Compression.Algorithm values, as the probe found it. */
export type CodecProbe =
  | { readonly name: string; readonly usable: true }
  | { readonly name: string; readonly usable: false; /** why not, e.g. a ClassNotFoundException */ readonly error: string };

export interface CodecProbePort {
  /** Every codec HBase knows (NONE, GZ, SNAPPY, LZ4, ZSTD, …), usable or not. */
  codecs(): Promise<readonly CodecProbe[]>;
}

/** The usable codecs' names, upper case (as COMPRESSION is spelled in a schema). */
export function usableCodecs(probes: readonly CodecProbe[]): string[] {
  return probes.filter((p) => p.usable).map((p) => p.name.toUpperCase());
}
