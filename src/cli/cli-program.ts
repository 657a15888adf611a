/**
 * The whole `mlb` command line: every command (commands/, one file each, loaded as command-index.ts says), parsed
 * by yargs, and the exit codes: 0 ok, 1 failure, 2 usage error (docs/architecture.md, "CLI"). main.ts, the
 * bundle's entry, loads this file for every command line it cannot answer itself (prebuilt-answer.ts): yargs and
 * the command list are most of what a start of mlb parses and compiles.
 */
import yargs from 'yargs';
import { ExitCode, UsageError } from './exit-codes';
import { findCommand, outlineCommands } from './docs/command-outline';
import { withWholeExamples } from './docs/help-examples';
import { manCommand } from './commands/man';
import { type AnyCommand, COMMAND_ENTRIES, commandModules, commandName, commandsToLoad } from './command-index';
import { usageErrorText, type CommandSummary } from './usage-hint';
import { expandArgvShortcuts } from './argv-shortcuts';
import { helpWidth } from './help-width';
import { failureExit } from './failure-exit';
import { runInProcess, type InProcessInput, type InProcessResult } from './in-process-run';
import { rememberBundleEntry } from '../sources/file/parser-worker-role';

/** The man page lists every command whole, so `mlb man` loads them all (command-index.ts). */
const MAN = 'man';

/** Every command, in the order --help lists them: whole where `argv` needs them, listed only otherwise. */
async function programCommands(argv: readonly string[]): Promise<AnyCommand[]> {
  const commands = await commandModules(COMMAND_ENTRIES, commandsToLoad(argv, new Set([MAN])));
  commands.push(manCommand(() => ({ commands, usage: PROGRAM_USAGE, epilogue: PROGRAM_EPILOGUE })));
  return commands;
}

/** `mlb --help`'s text before the commands, and after them; the man page (commands/man.ts) prints both too. */
const PROGRAM_USAGE =
  'mlb: a highly available IP address for bare-metal services.\n' +
  "MetalLB's objects, allocation and election, on plain Linux hosts or Kubernetes.\n\n" +
  'Usage: mlb <command> [options]';
const PROGRAM_EPILOGUE =
  'Exit codes: 0 ok, 1 failure (e.g. an invalid configuration), 2 usage error, 3 split brain (mlb arping),\n' +
  '141 output closed early (`mlb validate ... | head -1`, as a tool stopped by SIGPIPE).\n' +
  'mlb check alone answers as a monitoring plugin: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN.\n' +
  '`mlb` alone prints this help and exits 0 (asking what mlb does is no error).\n' +
  'Start with: mlb validate examples/plain-host.yaml';

/** Each command's first word and description, for the list a usage error shows. */
const COMMAND_SUMMARIES: readonly CommandSummary[] = [
  ...COMMAND_ENTRIES.map((e) => ({ name: commandName(e.command), describe: e.describe })),
  { name: MAN, describe: String(manCommand(() => ({ commands: [], usage: '', epilogue: '' })).describe) },
];

/** Runs `mlb GIVEN...`: resolves when the command is done, rejects with what failed (failure-exit.ts maps it). */
async function runCommandLine(given: string[]): Promise<void> {
  const argv = expandArgvShortcuts(given);
  const HELP_WIDTH = helpWidth(process.stdout);
  const commands = await programCommands(argv);
  const cli = yargs(argv)
    .scriptName('mlb')
    .usage(PROGRAM_USAGE)
    // Every flag can also come from the environment: --config is MLB_CONFIG, --nodes is MLB_NODES. The prefix
    // includes the underscore, or yargs would read MLBT_X (anything starting with MLB) as --t-x.
    .env('MLB_')
    // MLB_NATIVE_ADDON (src/native/native-addon.ts, a packager's addon path) is read from the environment where
    // the addon loads; declaring it keeps strict parsing from refusing it as an unknown MLB_ variable.
    .option('native-addon', { type: 'string', hidden: true, global: true, describe: 'Path of mlb_native.node (MLB_NATIVE_ADDON)' })
    // MLB_UDP_TTL_ADDON (src/native/udp-ttl.ts, BFD's TTL-reporting socket) likewise.
    .option('udp-ttl-addon', { type: 'string', hidden: true, global: true, describe: 'Path of mlb_udp_ttl.node (MLB_UDP_TTL_ADDON)' })
    .command(commands)
    .demandCommand(1, 'Name a command.')
    .strict()
    .recommendCommands()
    .help()
    .alias('help', 'h')
    .version(false)
    // Only listed here: argv-shortcuts.ts turns `mlb --version` and `mlb -v` into `mlb version` before parsing.
    .option('version', { alias: 'v', type: 'boolean', global: false, describe: 'Print the version, as `mlb version` does' })
    .wrap(HELP_WIDTH)
    .epilogue(PROGRAM_EPILOGUE)
    .fail((message, error, y) => {
      if (error) throw error;
      throw new UsageError(usageErrorText(message, argv, COMMAND_SUMMARIES));
      void y;
    });
  // yargs hands its output (--help, completions) to this callback instead of printing it, so the help's examples
  // can be printed whole (docs/help-examples.ts).
  await cli.parseAsync(argv, {}, (_error, parsed, output) => {
    if (!output) return;
    const command = findCommand(outlineCommands(commands), (parsed?._ ?? []).map(String));
    process.stdout.write(`${withWholeExamples(output, command?.examples ?? [], HELP_WIDTH)}\n`);
  });
}

/**
 * How long a failed command may take to exit by itself before it is made to. Its handler has already closed what
 * it opened; this is the backstop for what it could not (a socket left bound by a library, a watcher), because a
 * daemon that failed to start must not stay up without its control socket: under systemd's Type=exec the unit
 * would look active and never be restarted. Long enough for stderr and the log to be written.
 */
const FAILED_EXIT_GRACE_MS = 500;

function fail(code: ExitCode, text: string): void {
  process.stderr.write(text);
  process.exitCode = code;
  setTimeout(() => process.exit(code), FAILED_EXIT_GRACE_MS).unref();
}

/**
 * Runs the process's command line (`argv`: the arguments after `mlb`) and sets its exit status. `entryUrl` is the
 * bundle's entry file, where a configuration parser worker must start (parser-worker-role.ts).
 */
export function runAsProcess(argv: string[], entryUrl: string): void {
  rememberBundleEntry(entryUrl);
  void runCommandLine(argv).then(
    () => {
      process.exitCode ??= ExitCode.ok;
    },
    (error: unknown) => {
      const failure = failureExit(error);
      fail(failure.code, failure.text);
    },
  );
}

/** `mlb ARGS` inside the calling process, for tests (in-process-run.ts), through the same runCommandLine. */
export function runInThisProcess(input: InProcessInput, entryUrl: string): Promise<InProcessResult> {
  rememberBundleEntry(entryUrl);
  return runInProcess(runCommandLine, input);
}
