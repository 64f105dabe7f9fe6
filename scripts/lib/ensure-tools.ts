// Command-line tools the tests need besides Java and Maven: `promtool` (rule checks and rule unit
// tests) and `prometheus` (the dashboard integration test), both from Debian's `prometheus` package.
// Missing and running as root with apt-get: installed. Otherwise: a clear error saying what to do.
import { spawnSync } from 'node:child_process';

export interface Tool {
  /** executable looked up on PATH */
  readonly command: string;
  /** Debian package that provides it */
  readonly aptPackage: string;
}

export const TEST_TOOLS: readonly Tool[] = [
  { command: 'promtool', aptPackage: 'prometheus' },
  { command: 'prometheus', aptPackage: 'prometheus' },
  // headless browser for the /ui page test (test/integration/ui)
  { command: 'chromium', aptPackage: 'chromium' },
];

export class MissingToolError extends Error {
  override readonly name = 'MissingToolError';
}

function answers(command: string): boolean {
  const res = spawnSync(command, ['--version'], { stdio: 'ignore' });
  return res.error === undefined && res.status === 0;
}

function run(command: string, args: readonly string[], log: (m: string) => void): void {
  log(`${command} ${args.join(' ')}`);
  const res = spawnSync(command, args, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (res.error !== undefined || res.status !== 0) {
    throw new MissingToolError(`${command} ${args.join(' ')} failed (${res.error?.message ?? `exit ${String(res.status)}`})`);
  }
}

/** Only the binaries are wanted: if the package started its daemon (systemd hosts), stop and disable it. */
function stopPackagedDaemon(log: (m: string) => void): void {
  if (!answers('systemctl')) return;
  const active = spawnSync('systemctl', ['is-active', '--quiet', 'prometheus.service'], { stdio: 'ignore' });
  if (active.status === 0) {
    log('stopping and disabling the prometheus.service the package started (the tests run their own Prometheus)');
    spawnSync('systemctl', ['disable', '--now', 'prometheus.service'], { stdio: 'ignore' });
  }
}

/** Throws MissingToolError when a tool is missing and cannot be installed here. */
export function ensureTools(log: (m: string) => void, tools: readonly Tool[] = TEST_TOOLS): void {
  const missing = tools.filter((t) => !answers(t.command));
  if (missing.length === 0) return;
  const names = missing.map((t) => t.command).join(', ');
  const packages = [...new Set(missing.map((t) => t.aptPackage))];
  const isRoot = process.getuid?.() === 0;
  if (!isRoot || !answers('apt-get')) {
    throw new MissingToolError(
      `${names} not found on PATH; the tests need them (Prometheus rule checks and the dashboard test). ` +
        `Install them: on Debian/Ubuntu \`sudo apt-get install ${packages.join(' ')}\`; elsewhere put promtool and prometheus ` +
        '(2.x or 3.x, https://prometheus.io/download/) on PATH.',
    );
  }
  log(`${names} missing: installing ${packages.join(' ')} with apt-get`);
  run('apt-get', ['update'], log);
  run('apt-get', ['install', '-y', '--no-install-recommends', ...packages], log);
  stopPackagedDaemon(log);
  const still = missing.filter((t) => !answers(t.command));
  if (still.length > 0) throw new MissingToolError(`${still.map((t) => t.command).join(', ')} still not found after installing ${packages.join(' ')}`);
}
