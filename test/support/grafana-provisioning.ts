// Reads and checks a Grafana datasource provisioning file holding the stored series' OpenTSDB
// datasource (deploy/grafana/provisioning/datasources/opentsdb.yml, deploy/grafana/k8s-datasources.yml)
// with the YAML subset parser; throws an AssertionError naming what is wrong.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseYaml, type Yaml } from './yaml-subset.ts';

export interface OpenTsdbDatasource {
  readonly name: string;
  readonly uid: string;
  readonly url: string;
  readonly tsdbVersion: number;
  readonly tsdbResolution: number;
  readonly lookupLimit: number;
}

type YamlMap = { [key: string]: Yaml };
const isMap = (v: Yaml | undefined): v is YamlMap => typeof v === 'object' && v !== null && !Array.isArray(v);

/** All datasources of a provisioning file (apiVersion 1). */
export function provisionedDatasources(file: string): YamlMap[] {
  const doc = parseYaml(readFileSync(file, 'utf8'));
  assert.ok(isMap(doc), `${file}: a mapping`);
  assert.equal(doc['apiVersion'], 1, `${file}: apiVersion 1`);
  const list = doc['datasources'];
  assert.ok(Array.isArray(list) && list.length > 0, `${file}: datasources is a list`);
  return list.map((d, i) => {
    assert.ok(isMap(d), `${file}: datasources[${i}] is a mapping`);
    return d;
  });
}

/** The file's one `type: opentsdb` datasource, checked as Grafana's OpenTSDB datasource reads it. */
export function openTsdbDatasource(file: string): OpenTsdbDatasource {
  const all = provisionedDatasources(file).filter((d) => d['type'] === 'opentsdb');
  assert.equal(all.length, 1, `${file}: one datasource of type opentsdb`);
  const d = all[0] as YamlMap;
  const str = (k: string): string => {
    const v = d[k];
    assert.equal(typeof v, 'string', `${file}: ${k} is a string`);
    return v as string;
  };
  assert.equal(d['access'], 'proxy', `${file}: access proxy (Grafana's server reaches the service; the browser path goes through its datasource proxy)`);
  const url = str('url');
  assert.match(url, /^https?:\/\/[^/]+:\d+$/, `${file}: url is scheme://host:port with no path (requests go to <url>/api/…)`);
  const jsonData = d['jsonData'];
  assert.ok(isMap(jsonData), `${file}: jsonData is a mapping`);
  const int = (k: string): number => {
    const v = jsonData[k];
    assert.ok(
      typeof v === 'number' && Number.isInteger(v),
      `${file}: jsonData.${k} is a JSON number (got ${JSON.stringify(v)}); a string breaks Grafana's server path`,
    );
    return v;
  };
  const tsdbVersion = int('tsdbVersion');
  assert.ok([1, 2, 3, 4].includes(tsdbVersion), `${file}: tsdbVersion 1..4`);
  const tsdbResolution = int('tsdbResolution');
  assert.ok([1, 2].includes(tsdbResolution), `${file}: tsdbResolution 1 (s) or 2 (ms)`);
  const lookupLimit = int('lookupLimit');
  assert.ok(lookupLimit > 0 && lookupLimit <= 2 ** 31 - 1, `${file}: lookupLimit fits Grafana's int32`);
  return { name: str('name'), uid: str('uid'), url, tsdbVersion, tsdbResolution, lookupLimit };
}
