// tsingest — the service and its tools: dispatches to the command groups of src/cli/<group>.ts, each
// parsing its own flags. Every command: docs/COMMANDS.md; usage: `tsingest help [CMD]`.
// Design notes: docs/DECISIONS.md#the-command-line
import { UsageError } from './cli/args.ts';
import { AUTH_USAGE, authCommand } from './cli/auth.ts';
import { helpFor, overallUsage, type CommandEntry } from './cli/help.ts';
import { CATALOG_USAGE, catalogCommand } from './cli/catalog.ts';
import { DELETE_USAGE, deleteCommand } from './cli/delete.ts';
import { DOCTOR_USAGE, doctorCommand } from './cli/doctor.ts';
import { INDEX_USAGE, indexCommand } from './cli/index-cmd.ts';
import { KEYS_USAGE, keysCommand } from './cli/keys.ts';
import { QUERY_USAGE, queryCommand } from './cli/query.ts';
import { ROLLUP_USAGE, rollupCommand } from './cli/rollup.ts';
import { PRODUCE_USAGE, produceCommand } from './cli/produce.ts';
import { RUN_USAGE, runCommand } from './cli/run.ts';
import { SPREAD_USAGE, spreadCommand } from './cli/spread.ts';
import { TABLES_USAGE, tablesCommand } from './cli/tables.ts';
import { WHATIF_USAGE, whatifCommand } from './cli/whatif.ts';

type Command = (argv: readonly string[]) => number | Promise<number>;

/** The command tree: each command, its subcommands (as its usage names them) and how it runs. */
export const COMMANDS: Readonly<Record<string, CommandEntry & { readonly run: Command }>> = {
  run: { run: runCommand, usage: RUN_USAGE, subcommands: [] },
  tables: { run: tablesCommand, usage: TABLES_USAGE, subcommands: ['apply', 'check'] },
  keys: { run: keysCommand, usage: KEYS_USAGE, subcommands: ['encode', 'decode'] },
  rollup: { run: rollupCommand, usage: ROLLUP_USAGE, subcommands: ['run', 'backfill'] },
  query: { run: queryCommand, usage: QUERY_USAGE, subcommands: ['latest', 'range', 'by-tag', 'rollups'] },
  index: { run: indexCommand, usage: INDEX_USAGE, subcommands: ['verify', 'rebuild'] },
  spread: { run: spreadCommand, usage: SPREAD_USAGE, subcommands: ['list', 'set'] },
  produce: { run: produceCommand, usage: PRODUCE_USAGE, subcommands: [] },
  doctor: { run: doctorCommand, usage: DOCTOR_USAGE, subcommands: [] },
  whatif: { run: whatifCommand, usage: WHATIF_USAGE, subcommands: [] },
  catalog: { run: catalogCommand, usage: CATALOG_USAGE, subcommands: ['backfill'] },
  delete: { run: deleteCommand, usage: DELETE_USAGE, subcommands: [] },
  auth: { run: authCommand, usage: AUTH_USAGE, subcommands: ['hash'] },
};

export function usage(): string {
  return overallUsage(COMMANDS);
}

export async function main(argv: readonly string[]): Promise<number> {
  const help = helpFor(argv, COMMANDS);
  if (help !== undefined) {
    process.stdout.write(`${help}\n`);
    return 0;
  }
  const [name, ...rest] = argv;
  const command = name === undefined ? undefined : COMMANDS[name];
  if (command === undefined) throw new UsageError(usage());
  return command.run(rest);
}

if (import.meta.main) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`tsingest: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = err instanceof UsageError ? 2 : 1;
    },
  );
}
