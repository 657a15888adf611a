/**
 * `mlb --help` and `mlb --version` are answered by the bundle's entry from text baked in at build time
 * (src/cli/prebuilt-answer.ts), without loading the command line. What a user sees must not depend on which way
 * the answer came: each is held byte for byte to what the whole command line (dist/mlb-cli.mjs) prints for the
 * same arguments, at the widths the help was baked for and at one it was not, and an MLB_ variable, which yargs
 * reads as a flag, still changes the answer as it does for every command.
 */
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MLB_BUNDLE, REPO_ROOT } from './run-cli';

const WHOLE_COMMAND_LINE = pathToFileURL(`${REPO_ROOT}dist/mlb-cli.mjs`).href;

/** Makes stdout look `width` columns wide, as a terminal would (help-width.ts reads process.stdout.columns). */
const columnsPreload = (width: number): string[] => [
  '--import',
  `data:text/javascript,Object.defineProperty(process.stdout,'columns',{value:${width}})`,
];

interface Output {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The environment without MLB_ variables (each is a flag to mlb) unless given. */
function environment(extra: Record<string, string>): Record<string, string> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('MLB_'))) as Record<string, string>;
  return { ...env, FORCE_COLOR: '0', ...extra };
}

function spawn(args: string[], env: Record<string, string>): Output {
  const run = spawnSync(process.execPath, args, { cwd: REPO_ROOT, encoding: 'utf8', env: environment(env) });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** `mlb ARGS` as a user runs it: dist/mlb.mjs, which answers these from its baked text. */
function viaEntry(argv: string[], width?: number, env: Record<string, string> = {}): Output {
  return spawn([...(width === undefined ? [] : columnsPreload(width)), MLB_BUNDLE, ...argv], env);
}

/** The same command line through the whole command line, as the entry runs every other one. */
function viaWholeCommandLine(argv: string[], width?: number, env: Record<string, string> = {}): Output {
  const script = `import(${JSON.stringify(WHOLE_COMMAND_LINE)}).then((p) => p.runAsProcess(${JSON.stringify(argv)}, ${JSON.stringify(pathToFileURL(MLB_BUNDLE).href)}))`;
  return spawn([...(width === undefined ? [] : columnsPreload(width)), '--input-type=module', '-e', script], env);
}

describe('mlb --help and --version from the entry', () => {
  it.each([
    ['no terminal', undefined],
    ['a terminal 80 columns wide', 80],
    ['a terminal 110 columns wide', 110],
    ['a terminal wider than the help', 200],
    ['a width no help was baked for', 93],
  ])('prints the same help as the whole command line on %s', (_what, width) => {
    const whole = viaWholeCommandLine(['--help'], width);
    expect(whole.status).toBe(0);
    expect(whole.stdout).toContain('mlb validate [file]');
    for (const argv of [['--help'], ['-h'], []]) expect(viaEntry(argv, width), `mlb ${argv.join(' ')}`).toEqual(whole);
  });

  it('prints the same version line as `mlb version`', () => {
    const whole = viaWholeCommandLine(['version']);
    expect(whole.stdout).toMatch(/^mlb \d+\.\d+\.\d+ \(commit .+, node v\d+/);
    for (const argv of [['--version'], ['-v']]) expect(viaEntry(argv)).toEqual(whole);
  });

  it('still reads MLB_ variables as flags: MLB_JSON=true makes --version JSON', () => {
    const run = viaEntry(['--version'], undefined, { MLB_JSON: 'true' });
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ version: expect.any(String), commit: expect.any(String) });
  });
});
