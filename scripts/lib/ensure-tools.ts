// Command-line tools the tests need besides Java and Maven: `promtool` (rule checks and rule unit
// tests) and `prometheus` (the dashboard integration test), both from Debian's `prometheus` package;
// `chromium` (the /ui test); `nginx` (the TLS proxy in front of the REST gateway, test/support/nginx.ts).
// Missing and running as root with apt-get: installed. Otherwise: a clear error saying what to do.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

export interface Tool {
  /** executable looked up on PATH */
  readonly command: string;
  /** Debian package that provides it */
  readonly aptPackage: string;
  /** arguments that print the version and exit 0; default ['--version'] */
  readonly versionArgs?: readonly string[];
}

export const TEST_TOOLS: readonly Tool[] = [
  { command: 'promtool', aptPackage: 'prometheus' },
  { command: 'prometheus', aptPackage: 'prometheus' },
  // headless browser for the /ui page test (test/integration/ui)
  { command: 'chromium', aptPackage: 'chromium' },
  // authenticating TLS proxy in front of the REST gateway (test/integration/hbase/nginx-proxy.test.ts)
  { command: 'nginx', aptPackage: 'nginx', versionArgs: ['-v'] },
];

/** Daemons the packages above start on install; without systemd, the pid file the init script writes. */
const PACKAGED_DAEMONS: readonly { readonly service: string; readonly pidFile?: string }[] = [
  { service: 'prometheus.service' },
  { service: 'nginx.service', pidFile: '/run/nginx.pid' },
];

export class MissingToolError extends Error {
  override readonly name = 'MissingToolError';
}

function answers(command: string, versionArgs: readonly string[] = ['--version']): boolean {
  const res = spawnSync(command, versionArgs, { stdio: 'ignore' });
  return res.error === undefined && res.status === 0;
}

function run(command: string, args: readonly string[], log: (m: string) => void): void {
  log(`${command} ${args.join(' ')}`);
  const res = spawnSync(command, args, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (res.error !== undefined || res.status !== 0) {
    throw new MissingToolError(`${command} ${args.join(' ')} failed (${res.error?.message ?? `exit ${String(res.status)}`})`);
  }
}

/** Only the binaries are wanted: stop (and on systemd hosts disable) any daemon a package started. */
function stopPackagedDaemons(log: (m: string) => void): void {
  const systemd = existsSync('/run/systemd/system') && answers('systemctl');
  for (const { service, pidFile } of PACKAGED_DAEMONS) {
    if (systemd) {
      if (spawnSync('systemctl', ['is-active', '--quiet', service], { stdio: 'ignore' }).status !== 0) continue;
      log(`stopping and disabling the ${service} the package started (the tests run their own)`);
      spawnSync('systemctl', ['disable', '--now', service], { stdio: 'ignore' });
    } else if (pidFile !== undefined && existsSync(pidFile)) {
      const pid = Number(readFileSync(pidFile, 'utf8').trim());
      const name = service.replace(/\.service$/, '');
      const cmdline = Number.isSafeInteger(pid) && pid > 0 && existsSync(`/proc/${pid}/cmdline`) ? readFileSync(`/proc/${pid}/cmdline`, 'utf8') : '';
      if (!cmdline.includes(name)) continue;
      log(`stopping the ${name} (pid ${pid}) the package started (the tests run their own)`);
      try { process.kill(pid, 'SIGTERM'); } catch { /* already gone */ }
    }
  }
}

/** Throws MissingToolError when a tool is missing and cannot be installed here. */
export function ensureTools(log: (m: string) => void, tools: readonly Tool[] = TEST_TOOLS): void {
  const missing = tools.filter((t) => !answers(t.command, t.versionArgs));
  if (missing.length === 0) return;
  const names = missing.map((t) => t.command).join(', ');
  const packages = [...new Set(missing.map((t) => t.aptPackage))];
  const isRoot = process.getuid?.() === 0;
  if (!isRoot || !answers('apt-get')) {
    throw new MissingToolError(
      `${names} not found on PATH; the tests need them (Prometheus rule checks, the dashboard, /ui and TLS proxy tests). ` +
        `Install them: on Debian/Ubuntu \`sudo apt-get install ${packages.join(' ')}\`; elsewhere put promtool and prometheus ` +
        '(2.x or 3.x, https://prometheus.io/download/) on PATH.',
    );
  }
  log(`${names} missing: installing ${packages.join(' ')} with apt-get`);
  run('apt-get', ['update'], log);
  run('apt-get', ['install', '-y', '--no-install-recommends', ...packages], log);
  stopPackagedDaemons(log);
  const still = missing.filter((t) => !answers(t.command, t.versionArgs));
  if (still.length > 0) throw new MissingToolError(`${still.map((t) => t.command).join(', ')} still not found after installing ${packages.join(' ')}`);
}
