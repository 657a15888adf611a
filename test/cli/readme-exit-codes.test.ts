/**
 * The README's exit-code table is what scripts and monitoring are written against: every command `mlb --help`
 * lists has a row there, so a new command cannot ship with its exit codes undocumented.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runMlb } from './run-cli';

/** The rows of the README's "Exit codes" table: the command names in each row's first cell. */
function documentedCommands(): Set<string> {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const section = readme.split('\n### Exit codes\n')[1]?.split('\n#')[0] ?? '';
  const firstCells = section
    .split('\n')
    .filter((l) => l.startsWith('| `mlb '))
    .map((l) => l.split('|')[1] ?? '');
  return new Set(firstCells.flatMap((cell) => [...cell.matchAll(/`mlb ([a-z-]+)/g)].map((m) => m[1] as string)));
}

describe('the README exit-code table', () => {
  it('has a row for every command mlb --help lists', () => {
    const help = runMlb(['--help']);
    expect(help.status).toBe(0);
    const listed = [...help.stdout.matchAll(/^ {2}mlb ([a-z-]+)/gm)].map((m) => m[1] as string);
    expect(listed.length).toBeGreaterThan(5);
    const documented = documentedCommands();
    expect(listed.filter((c) => !documented.has(c))).toEqual([]);
  });
});
