/**
 * What follows a usage error, chosen for the command line given: a known command's own --help; for a word that
 * is no command, only the suggestion and the list of commands (pointing at `mlb stauts --help` sent the user to a
 * command that does not exist); for a word from another tool's habits (`get`, `logs`), where that lives in mlb
 * (habit-words.ts); with no command at all, the list.
 */
import { closestMatch } from '../model/parse/did-you-mean';
import { habitAnswer } from './habit-words';
import { commandWord } from './argv-shortcuts';

export interface CommandSummary {
  /** The command's first word (`explain`, not `explain [targets..]`). */
  readonly name: string;
  readonly describe: string;
}

/** The text of a usage error (without the leading "mlb: "). */
export function usageErrorText(message: string, argv: readonly string[], commands: readonly CommandSummary[]): string {
  const word = commandWord(argv);
  if (word !== undefined && commands.some((c) => c.name === word)) return `${message}\n\nRun "mlb ${word} --help" for the options.`;
  if (word === undefined) return `${message}\n\n${commandList(commands)}`;
  const habit = habitAnswer(word);
  if (habit !== undefined) return habit;
  // Not yargs' suggestion: it measures edit distance alone, and every short word is a few edits from "lab".
  // closestMatch allows fewer edits the shorter the word is.
  const suggestion = closestMatch(
    word,
    commands.map((c) => c.name),
  );
  const head = suggestion ? `unknown command "${word}": did you mean ${suggestion}?` : `unknown command "${word}".`;
  return `${head}\n\n${commandList(commands)}`;
}

/** "Commands:" and one line per command, names aligned, as `mlb --help` lists them. */
function commandList(commands: readonly CommandSummary[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return ['Commands:', ...commands.map((c) => `  mlb ${c.name.padEnd(width)}  ${c.describe}`)].join('\n');
}
