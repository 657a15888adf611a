/**
 * The pieces the man page and the help's examples are built from: the outline a builder declares, roff's escaping,
 * and the Examples block put back whole.
 */
import type { CommandModule } from 'yargs';
import { describe, expect, it } from 'vitest';
import { findCommand, outlineCommands } from '../../../src/cli/docs/command-outline';
import { withWholeExamples } from '../../../src/cli/docs/help-examples';
import { escape, manPage } from '../../../src/cli/docs/man-page';

const leaf: CommandModule<object, object> = {
  command: 'up [name]',
  describe: 'Start it',
  builder: (y) =>
    y
      .positional('name', { type: 'string', describe: 'What to start' })
      .option('count', { alias: 'c', type: 'number', default: 3, describe: 'How many' })
      .option('secret', { type: 'string', hidden: true, describe: 'not for users' })
      .conflicts('count', 'secret')
      .example('tool group up web --count 5', 'five of them')
      .epilogue('Ends when all are up.'),
  handler: () => undefined,
};
const hidden: CommandModule<object, object> = { command: 'internal', describe: false, handler: () => undefined };
const group: CommandModule<object, object> = {
  command: 'group',
  describe: 'A group',
  builder: (y) => y.command(leaf).command(hidden).demandCommand(1),
  handler: () => undefined,
};

describe('outlineCommands', () => {
  it('records options, positionals, examples, epilogue and subcommands; hidden ones are left out', () => {
    const [outline] = outlineCommands([group]);
    expect(outline?.subcommands.map((s) => s.path)).toEqual([['group', 'up']]);
    const up = findCommand(outlineCommands([group]), ['group', 'up']);
    expect(up).toMatchObject({
      usageTail: '[name]',
      describe: 'Start it',
      positionals: [{ name: 'name', type: 'string', describe: 'What to start', required: false }],
      options: [{ name: 'count', aliases: ['c'], type: 'number', defaultText: '3', describe: 'How many', required: false }],
      examples: [{ command: 'tool group up web --count 5', describe: 'five of them' }],
      epilogue: 'Ends when all are up.',
    });
    expect(findCommand(outlineCommands([group]), ['nothing'])).toBeUndefined();
  });
});

describe('roff', () => {
  it('escapes backslashes and hyphens, and a leading control character', () => {
    expect(escape('a\\b --flag')).toBe('a\\eb \\-\\-flag');
    expect(escape('.hidden')).toBe('\\&.hidden');
    expect(escape("'quoted")).toBe("\\&'quoted");
  });

  it('gives each option its dashes, its aliases and its facts', () => {
    const page = manPage({
      version: '1.2.3',
      usage: 'tool: does things.\nMore.\n\nUsage: tool <command>',
      epilogue: 'Exit codes: 0 ok.',
      commands: outlineCommands([group]),
    });
    expect(page).toContain('.SS "mlb group up [name]"');
    expect(page).toContain('.TP\n\\fB\\-c\\fR, \\fB\\-\\-count\\fR [number, default: 3]\nHow many\n');
    expect(page).not.toContain('secret');
    expect(page).toContain('.SH "EXIT STATUS"\n.PP\nExit codes: 0 ok.\n');
  });
});

describe('withWholeExamples', () => {
  const help = [
    'Options:',
    '  --count  How many',
    '',
    'Examples:',
    '  tool group up web      five of them',
    '  --count 5',
    '',
    'Ends when all are up.',
  ].join('\n');

  it("replaces yargs' two-column block with each command whole and its description under it", () => {
    expect(withWholeExamples(help, [{ command: 'tool group up web --count 5', describe: 'five of them' }], 80)).toBe(
      [
        'Options:',
        '  --count  How many',
        '',
        'Examples:',
        '  tool group up web --count 5',
        '      five of them',
        '',
        'Ends when all are up.',
      ].join('\n'),
    );
  });

  it('wraps a long description at the width, indented under the command', () => {
    const out = withWholeExamples(help, [{ command: 'x', describe: 'one two three four five six' }], 20).split('\n');
    expect(out.slice(4, 7)).toEqual(['  x', '      one two three', '      four five six']);
  });

  it('leaves a help without examples as it was', () => {
    expect(withWholeExamples('Options:\n  --x', [{ command: 'x', describe: '' }], 80)).toBe('Options:\n  --x');
    expect(withWholeExamples(help, [], 80)).toBe(help);
  });
});
