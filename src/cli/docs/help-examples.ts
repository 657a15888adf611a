/**
 * Examples in `mlb COMMAND --help`, printed whole. yargs lays examples out in two columns and wraps a long command
 * line into the description column, so what a user copies is no longer the command. Here each example's command
 * stands alone on its line, never wrapped (the terminal may fold it, a copy still gets it whole), and its
 * description follows on the next lines, indented and wrapped like prose. yargs' own Examples block is replaced;
 * the examples come from the command's definition (command-outline.ts), not from the wrapped text.
 */
import type { ExampleOutline } from './command-outline';

/** Where the description starts: under the command, past the two spaces that indent the command itself. */
const DESCRIPTION_INDENT = 6;
const COMMAND_INDENT = 2;
const HEADING = 'Examples:';

/** `help` with its Examples block (from the heading to the next blank line) rendered from `examples`. */
export function withWholeExamples(help: string, examples: readonly ExampleOutline[], width: number): string {
  if (examples.length === 0) return help;
  const lines = help.split('\n');
  const start = lines.indexOf(HEADING);
  if (start < 0) return help;
  const end = lines.findIndex((l, i) => i > start && l.trim() === '');
  const after = end < 0 ? [] : lines.slice(end);
  return [...lines.slice(0, start), ...renderExamples(examples, width), ...after].join('\n');
}

function renderExamples(examples: readonly ExampleOutline[], width: number): string[] {
  return [
    HEADING,
    ...examples.flatMap((e) => [
      `${' '.repeat(COMMAND_INDENT)}${e.command}`,
      ...wrapWords(e.describe, width - DESCRIPTION_INDENT).map((l) => `${' '.repeat(DESCRIPTION_INDENT)}${l}`),
    ]),
  ];
}

/** Prose broken at spaces into lines of at most `width` (a longer word keeps its own line). */
function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}
