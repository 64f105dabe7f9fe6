// `--help` for every command and subcommand, answered once by the dispatcher (src/cli.ts) before a
// command parses its flags: `tsingest query by-tag --help` prints the query command's usage and
// exits 0, whatever else is on the line. Pure: the dispatcher prints what helpFor returns.

/** One command of the tree: its usage line(s) and the subcommands named in them. */
export interface CommandEntry {
  readonly usage: string;
  readonly subcommands: readonly string[];
}

export const COMMON_FLAGS = '(common flags: --config FILE, --set key=value; --help on any command)';

/** A standalone --help or -h before a `--` (which ends the flags). */
export function wantsHelp(argv: readonly string[]): boolean {
  for (const a of argv) {
    if (a === '--') return false;
    if (a === '--help' || a === '-h') return true;
  }
  return false;
}

/** Every command's usage, as `tsingest` with no or an unknown command prints it. */
export function overallUsage(commands: Readonly<Record<string, CommandEntry>>): string {
  return ['usage:', ...Object.values(commands).map((c) => `  ${c.usage}`), `  ${COMMON_FLAGS}`].join('\n');
}

/**
 * The help text argv asks for, or undefined when it asks for none: `tsingest --help` / `tsingest
 * help` give every command's usage, `tsingest help CMD` and `tsingest CMD … --help` that command's.
 */
export function helpFor(argv: readonly string[], commands: Readonly<Record<string, CommandEntry>>): string | undefined {
  const [name, ...rest] = argv;
  if (name === 'help') {
    const entry = rest[0] === undefined ? undefined : commands[rest[0]];
    return entry === undefined ? overallUsage(commands) : commandHelp(entry);
  }
  if (!wantsHelp(argv)) return undefined;
  const entry = name === undefined ? undefined : commands[name];
  return entry === undefined ? overallUsage(commands) : commandHelp(entry);
}

function commandHelp(entry: CommandEntry): string {
  return `usage: ${entry.usage}\n${COMMON_FLAGS}`;
}
