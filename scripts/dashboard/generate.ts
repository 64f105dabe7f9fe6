// npm run dashboard            writes deploy/grafana/dashboards/region-write-spread.json from code
// npm run dashboard -- --check exits 1 when the committed file differs from what the code builds
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../lib/stack-config.ts';
import { DASHBOARD_FILE, renderDashboard } from './region-write-spread.ts';

const file = join(projectRoot, DASHBOARD_FILE);
const text = renderDashboard();
if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(file, 'utf8');
  } catch {
    // missing file: reported below as out of date
  }
  if (current !== text) {
    process.stderr.write(`${DASHBOARD_FILE} is out of date: run npm run dashboard\n`);
    process.exitCode = 1;
  } else {
    process.stdout.write(`${DASHBOARD_FILE} is up to date\n`);
  }
} else {
  writeFileSync(file, text);
  process.stdout.write(`wrote ${DASHBOARD_FILE} (${text.split('\n').length - 1} lines)\n`);
}
