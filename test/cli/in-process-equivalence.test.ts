/**
 * runMlbInProcess (the bundle's command line run inside the test process) answers exactly as the spawned bundle
 * does: the same stdout, stderr and status, byte for byte, for each kind of run the CLI tests move in-process.
 * Were they to differ, a test run in-process would prove something about a program no user runs.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runMlb, runMlbInProcess } from './run-cli';

const EXAMPLE = 'examples/plain-host.yaml';
const EXAMPLE_TEXT = readFileSync(join(REPO_ROOT, EXAMPLE), 'utf8');
const INVALID = 'test/fixtures/invalid/peer-bfd-echo-mode.yaml';

/** [what the run shows, argv, standard input] */
const RUNS: readonly (readonly [string, readonly string[], string?])[] = [
  ['a valid file, its allocation table', ['validate', EXAMPLE]],
  ['an invalid file, exit 1', ['validate', '--config', INVALID]],
  ['an invalid file as JSON', ['validate', '--config', INVALID, '--json']],
  ['a valid file as YAML', ['validate', '-f', 'examples/bgp.yaml', '-o', 'yaml']],
  ['the pools\' usage (-o wide)', ['validate', EXAMPLE, '-o', 'wide']],
  ['standard input', ['validate', '-'], EXAMPLE_TEXT],
  ['standard input, invalid', ['validate', '-'], 'apiVersion: v1\nkind: Servic\n'],
  ['a missing file (CommandError on stderr)', ['validate', '--config', 'no/such/file.yaml']],
  ['a usage error, exit 2', ['validate', EXAMPLE, '--bogus']],
  ['an unknown command', ['stauts']],
  ['explain offline', ['explain', 'demo/web', '--config', EXAMPLE]],
  ['explain offline as JSON', ['explain', '--config', EXAMPLE, '--json']],
  ['version', ['version']],
  ['version as JSON', ['--version', '--json']],
  ['the help', ['--help']],
  ['mlb alone', []],
  ['a command\'s help, its examples whole', ['validate', '--help']],
  ['the bash completion', ['completion', 'bash']],
  ['a shell it does not know', ['completion', 'fish']],
];

describe('runMlbInProcess answers as the spawned bundle', () => {
  it.each(RUNS)('%s', async (_what, argv, stdin) => {
    const spawned = runMlb([...argv], {}, stdin);
    const inProcess = await runMlbInProcess([...argv], {}, stdin);
    expect(inProcess).toEqual(spawned);
  });

  it('takes MLB_ variables from the environment it is given, and leaves none behind', async () => {
    const env = { MLB_CONFIG: INVALID };
    expect(await runMlbInProcess(['validate'], env)).toEqual(runMlb(['validate'], env));
    expect(process.env.MLB_CONFIG).toBeUndefined();
    expect((await runMlbInProcess(['validate'])).status).toBe(2);
  });

  it('leaves the exit status of one run out of the next', async () => {
    expect((await runMlbInProcess(['validate', '--config', INVALID])).status).toBe(1);
    expect((await runMlbInProcess(['validate', EXAMPLE])).status).toBe(0);
    expect(process.exitCode).toBeUndefined();
  });
});
