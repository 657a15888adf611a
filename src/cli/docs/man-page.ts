/**
 * mlb.1: the manual page, in the man(7) macros, built from the command outlines (command-outline.ts) and the
 * program's own usage and epilogue texts, the same words `mlb --help` and `mlb COMMAND --help` print. Pure; no date
 * in it, so building twice gives the same file.
 */
import type { CommandOutline, OptionOutline } from './command-outline';

export interface ProgramText {
  readonly version: string;
  /** `mlb --help`'s usage text: first line the one-line summary, then paragraphs. */
  readonly usage: string;
  /** `mlb --help`'s epilogue: exit codes first. */
  readonly epilogue: string;
  readonly commands: readonly CommandOutline[];
}

export function manPage(p: ProgramText): string {
  const [summary = '', ...about] = p.usage.split('\n').filter((l) => !l.startsWith('Usage:'));
  const lines = [
    `.TH MLB 1 "" "mlb ${escape(p.version)}" "User Commands"`,
    '.SH NAME',
    `mlb \\- ${escape(summary.replace(/^mlb:\s*/, ''))}`,
    '.SH SYNOPSIS',
    '.B mlb',
    '.I command',
    '[\\fIoptions\\fR]',
    '.SH DESCRIPTION',
    ...paragraphs(about.join('\n')),
    '.SH COMMANDS',
    ...p.commands.flatMap(commandSection),
    '.SH "EXIT STATUS"',
    ...paragraphs(p.epilogue),
    '.SH "SEE ALSO"',
    'Every command prints its own help: \\fBmlb\\fR \\fIcommand\\fR \\fB\\-\\-help\\fR.',
  ];
  return `${lines.join('\n')}\n`;
}

function commandSection(c: CommandOutline): string[] {
  const name = `mlb ${c.path.join(' ')}`;
  return [
    `.SS "${escape(`${name}${c.usageTail ? ` ${c.usageTail}` : ''}`)}"`,
    ...paragraphs(c.describe),
    ...optionList(c.positionals, (o) => `\\fI${escape(o.name)}\\fR`),
    ...optionList(c.options, (o) =>
      [o.name, ...o.aliases]
        .sort((a, b) => a.length - b.length)
        .map((n) => `\\fB${dashes(n)}${escape(n)}\\fR`)
        .join(', '),
    ),
    ...(c.examples.length > 0
      ? [
          '.PP',
          'Examples:',
          ...c.examples.flatMap((e) => [
            '.PP',
            '.RS 4',
            '.nf',
            `\\fB${escape(e.command)}\\fR`,
            '.fi',
            ...(e.describe ? ['.RS 4', escape(e.describe), '.RE'] : []),
            '.RE',
          ]),
        ]
      : []),
    ...paragraphs(c.epilogue),
    ...c.subcommands.flatMap(commandSection),
  ];
}

function optionList(options: readonly OptionOutline[], term: (o: OptionOutline) => string): string[] {
  return options.flatMap((o) => {
    const facts = [
      o.type,
      o.required ? 'required' : undefined,
      o.defaultText !== undefined ? `default: ${o.defaultText}` : undefined,
    ].filter(Boolean);
    return ['.TP', `${term(o)} [${escape(facts.join(', '))}]`, escape(o.describe)];
  });
}

/** One dash for a one-letter option, two otherwise, as yargs parses them. */
function dashes(name: string): string {
  return name.length === 1 ? '\\-' : '\\-\\-';
}

function paragraphs(text: string): string[] {
  return text
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter((p) => p !== '')
    .flatMap((p) => ['.PP', ...p.split('\n').map(escape)]);
}

/**
 * Text as roff prints it literally: a backslash is \e, a hyphen-minus \- (so options copy and paste as typed), and
 * a line must not start with a control character (. or ').
 */
export function escape(text: string): string {
  const escaped = text.replace(/\\/g, '\\e').replace(/-/g, '\\-');
  return /^[.']/.test(escaped) ? `\\&${escaped}` : escaped;
}
