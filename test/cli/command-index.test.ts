import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMAND_ENTRIES, commandsToLoad } from '../../src/cli/command-index';
import { MLB_BUNDLE, REPO_ROOT } from './run-cli';

/** What dist/mlb.mjs imports for every command line it does not answer itself (src/cli/cli-program.ts). */
const WHOLE_COMMAND_LINE = `${REPO_ROOT}dist/mlb-cli.mjs`;

/** The files a start of `entry` reads before running anything: the file and what it imports statically. */
function filesLoadedAtStart(entry: string): Map<string, string> {
  const loaded = new Map<string, string>();
  const visit = (file: string): void => {
    if (loaded.has(file)) return;
    const text = readFileSync(file, 'utf8');
    loaded.set(file, text);
    for (const m of text.matchAll(/^import\s[^;]*?["'](\.\/[^"']+)["'];/gms)) visit(join(dirname(file), m[1] ?? ''));
  };
  visit(entry);
  return loaded;
}

describe('the command index (what mlb --help lists without loading the commands)', () => {
  it("names and describes each command exactly as the command's own module does", async () => {
    for (const entry of COMMAND_ENTRIES) {
      const loaded = await entry.load();
      expect({ command: loaded.command, describe: loaded.describe }).toEqual({ command: entry.command, describe: entry.describe });
    }
  });

  it('loads only the commands a command line names; every command for completions and the man page', () => {
    expect(commandsToLoad(['--help'], new Set(['man']))).toEqual(new Set());
    expect(commandsToLoad(['validate', 'f.yaml', '--json'], new Set(['man']))).toEqual(new Set(['validate', 'f.yaml']));
    expect(commandsToLoad(['man'], new Set(['man']))).toBe('all');
    expect(commandsToLoad(['--get-yargs-completions', 'mlb', 'va'], new Set(['man']))).toBe('all');
  });

  it('starts the bundle from one file with no package in it: `mlb --help` loads nothing more (prebuilt-answer.ts)', () => {
    const atStart = filesLoadedAtStart(MLB_BUNDLE);
    expect([...atStart.keys()]).toEqual([MLB_BUNDLE]);
    expect(atStart.get(MLB_BUNDLE)).toContain('// src/cli/main.ts');
    expect(atStart.get(MLB_BUNDLE)).not.toContain('// node_modules/');
  });

  it('loads the command line without the yaml package, the model or the daemon: the commands come in only when run', () => {
    const atStart = [...filesLoadedAtStart(WHOLE_COMMAND_LINE).values()].join('\n');
    expect(atStart).toContain('// node_modules/yargs/');
    for (const heavy of ['// node_modules/yaml/', '// node_modules/pino/', '// src/model/parse/parse-config.ts', '// src/daemon/']) {
      expect(atStart, heavy).not.toContain(heavy);
    }
  });
});
