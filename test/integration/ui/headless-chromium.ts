// Headless Chromium for the /ui tests (not a test file): finds the browser installed on the machine
// (Debian's `chromium`, see scripts/lib/stack/ensure-tools.ts; or TSI_CHROMIUM), never installs anything,
// and runs it with a fresh profile directory per call.
import { execFile } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

const CANDIDATES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

/** The browser binary: TSI_CHROMIUM, else the first candidate on PATH; a clear error when none. */
export function findChromium(): string {
  const configured = process.env['TSI_CHROMIUM'];
  if (configured !== undefined && configured !== '') return configured;
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    for (const name of CANDIDATES) {
      const path = join(dir, name);
      try {
        accessSync(path, constants.X_OK);
        return path;
      } catch {
        // not here
      }
    }
  }
  throw new Error(
    `headless Chromium not found (looked for ${CANDIDATES.join(', ')} on PATH): install Debian's chromium (apt-get install -y chromium) or set TSI_CHROMIUM to a Chromium binary`,
  );
}

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
  '--hide-scrollbars',
];

function run(args: readonly string[], timeoutMs: number): Promise<string> {
  const profile = mkdtempSync(join(tmpdir(), 'tsi-chromium-'));
  return new Promise<string>((resolve, reject) => {
    execFile(findChromium(), [...FLAGS, `--user-data-dir=${profile}`, ...args], { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      rmSync(profile, { recursive: true, force: true });
      if (err !== null) reject(new Error(`chromium ${args.join(' ')} failed: ${err.message}\n${stderr.slice(-4000)}`));
      else resolve(stdout);
    });
  });
}

/** The DOM after the page loaded (and its inline scripts ran), serialized; `flags`: more Chromium flags. */
export function dumpDom(url: string, timeoutMs = 60_000, flags: readonly string[] = []): Promise<string> {
  return run([...flags, '--dump-dom', url], timeoutMs);
}

/** Saves a PNG screenshot of `url` at the given window size. */
export async function screenshot(url: string, file: string, size = { width: 1280, height: 900 }, timeoutMs = 60_000): Promise<void> {
  await run([`--screenshot=${file}`, `--window-size=${size.width},${size.height}`, url], timeoutMs);
}

/** Width and height from a PNG's IHDR chunk; throws when `png` is not a PNG. */
export function pngSize(png: Buffer): { width: number; height: number } {
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  if (png.length < 24 || !png.subarray(0, 8).equals(signature) || png.toString('latin1', 12, 16) !== 'IHDR') throw new Error(`not a PNG (${png.length} bytes)`);
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}
