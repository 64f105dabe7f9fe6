// npm run dashboard            writes the generated dashboards of deploy/grafana/dashboards from code:
//                              region-write-spread.json (Prometheus) and stored-series.json (OpenTSDB)
// npm run dashboard -- --check exits 1 when a committed file differs from what the code builds
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../lib/stack/config.ts';
import { DASHBOARD_FILE, renderDashboard } from './region-write-spread.ts';
import { STORED_SERIES_FILE, renderStoredSeriesDashboard } from './stored-series.ts';

const DASHBOARDS: readonly { readonly file: string; readonly render: () => string }[] = [
  { file: DASHBOARD_FILE, render: renderDashboard },
  { file: STORED_SERIES_FILE, render: renderStoredSeriesDashboard },
];

for (const d of DASHBOARDS) {
  const file = join(projectRoot, d.file);
  const text = d.render();
  if (process.argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(file, 'utf8');
    } catch {
      // missing file: reported below as out of date
    }
    if (current !== text) {
      process.stderr.write(`${d.file} is out of date: run npm run dashboard\n`);
      process.exitCode = 1;
    } else {
      process.stdout.write(`${d.file} is up to date\n`);
    }
  } else {
    writeFileSync(file, text);
    process.stdout.write(`wrote ${d.file} (${text.split('\n').length - 1} lines)\n`);
  }
}
