/**
 * Port to the cluster's region layout (implemented by the HBase REST client over `GET /<table>/regions`).
 * Defined here so the load code never imports the HBase client; the root wires an adapter in.
 */

/** One region of a table. An empty `startKey` means "from the beginning", an empty `endKey` "to the end". */
export interface RegionInfo {
  /** Full region name, e.g. `t1,\x05,1732262400000.5e9d1d0a1b2c3d4e5f6a7b8c9d0e1f2a.` */
  readonly name: string;
  readonly startKey: Buffer;
  readonly endKey: Buffer;
  /** `host:port` of the region server currently hosting the region. */
  readonly server: string;
}

export interface RegionSource {
  regions(table: string): Promise<readonly RegionInfo[]>;
}
