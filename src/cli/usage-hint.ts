/**
 * What follows a usage error, chosen for the command line given: a known command's own --help; for a word that
 * is no command, only the suggestion and the list of commands (pointing at `mlb stauts --help` sent the user to a
 * command that does not exist); with no command at all, the list.
 */

export interface CommandSummary {
  /** The command's first word (`explain`, not `explain [targets..]`). */
  readonly name: string;
  readonly describe: string;
}

/** yargs' recommendCommands message (validation.js), the only one that names a suggestion. */
const SUGGESTION = /^Did you mean (\S+)\?$/;

/** The first word of the command line that is not an option: what the user meant as the command. */
export function commandWord(argv: readonly string[]): string | undefined {
  return argv.find((a) => !a.startsWith('-'));
}

/** The text of a usage error (without the leading "mlb: "). */
export function usageErrorText(message: string, argv: readonly string[], commands: readonly CommandSummary[]): string {
  const word = commandWord(argv);
  if (word !== undefined && commands.some((c) => c.name === word)) return `${message}\n\nRun "mlb ${word} --help" for the options.`;
  if (word === undefined) return `${message}\n\n${commandList(commands)}`;
  const suggestion = SUGGESTION.exec(message)?.[1];
  const head = suggestion ? `unknown command "${word}": did you mean ${suggestion}?` : `unknown command "${word}".`;
  return `${head}\n\n${commandList(commands)}`;
}

/** "Commands:" and one line per command, names aligned, as `mlb --help` lists them. */
export function commandList(commands: readonly CommandSummary[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return ['Commands:', ...commands.map((c) => `  mlb ${c.name.padEnd(width)}  ${c.describe}`)].join('\n');
}
