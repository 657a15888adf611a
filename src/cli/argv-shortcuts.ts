/**
 * Command lines that mean another one, rewritten before yargs parses them (pure):
 * - `mlb` alone asks what mlb can do: it is answered with `mlb --help` (the commands, on stdout, exit 0), as
 *   kubectl does. Nothing failed, so no error line and no exit 2: `mlb | less` pages the list; a script that
 *   runs mlb without a command has no use for the list either way.
 * - `mlb --version` and `mlb -v` are `mlb version` (any other flags, such as --json, stay).
 * - A lone `-` (standard input: `mlb validate -`, `--config -`) becomes STDIN_ARGUMENT, because yargs' parser
 *   takes `-` for a flag and hands over an empty string in its place.
 */
import { STDIN_ARGUMENT } from './config-argument';

/** The flags that ask for the version when no command is named. */
const VERSION_FLAGS: ReadonlySet<string> = new Set(['--version', '-v']);

export function expandArgvShortcuts(given: readonly string[]): string[] {
  if (given.length === 0) return ['--help'];
  const argv = given.map((a) => (a === '-' ? STDIN_ARGUMENT : a));
  const namesCommand = argv.some((a) => !a.startsWith('-'));
  if (!namesCommand && argv.some((a) => VERSION_FLAGS.has(a))) return ['version', ...argv.filter((a) => !VERSION_FLAGS.has(a))];
  return argv;
}

/** The first word of the command line that is not an option: what the user meant as the command. */
export function commandWord(argv: readonly string[]): string | undefined {
  return argv.find((a) => !a.startsWith('-'));
}
