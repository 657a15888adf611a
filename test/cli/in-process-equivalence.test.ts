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

interface Run {
  what: string;
  argv: string[];
  stdin?: string;
}

const RUNS: readonly Run[] = [
  { what: 'a valid file, its allocation table', argv: ['validate', EXAMPLE] },
  { what: 'an invalid file, exit 1', argv: ['validate', '--config', INVALID] },
  { what: 'an invalid file as JSON', argv: ['validate', '--config', INVALID, '--json'] },
  { what: 'a valid file as YAML', argv: ['validate', '-f', 'examples/bgp.yaml', '-o', 'yaml'] },
  { what: "the pools' usage (-o wide)", argv: ['validate', EXAMPLE, '-o', 'wide'] },
  { what: 'standard input', argv: ['validate', '-'], stdin: EXAMPLE_TEXT },
  { what: 'standard input, invalid', argv: ['validate', '-'], stdin: 'apiVersion: v1\nkind: Servic\n' },
  { what: 'a missing file (CommandError on stderr)', argv: ['validate', '--config', 'no/such/file.yaml'] },
  { what: 'a usage error, exit 2', argv: ['validate', EXAMPLE, '--bogus'] },
  { what: 'an unknown command', argv: ['stauts'] },
  { what: 'explain offline', argv: ['explain', 'demo/web', '--config', EXAMPLE] },
  { what: 'explain offline as JSON', argv: ['explain', '--config', EXAMPLE, '--json'] },
  { what: 'explain for named nodes', argv: ['explain', '--config', EXAMPLE, '--nodes', 'node-a,node-b,node-c'] },
  { what: 'a file over --max-config-bytes', argv: ['validate', EXAMPLE, '--max-config-bytes', '100'] },
  { what: 'version', argv: ['version'] },
  { what: 'version as JSON', argv: ['--version', '--json'] },
  { what: 'the help', argv: ['--help'] },
  { what: 'mlb alone', argv: [] },
  { what: "a command's help, its examples whole", argv: ['validate', '--help'] },
  { what: 'the bash completion', argv: ['completion', 'bash'] },
  { what: 'a shell it does not know', argv: ['completion', 'fish'] },
];

describe('runMlbInProcess answers as the spawned bundle', () => {
  it.each(RUNS)('$what', async ({ argv, stdin }) => {
    const spawned = runMlb(argv, {}, stdin);
    const inProcess = await runMlbInProcess(argv, {}, stdin);
    expect(inProcess).toEqual(spawned);
  });

  it('takes MLB_ variables from the environment it is given, and leaves none behind', async () => {
    const env = { MLB_CONFIG: INVALID };
    expect(await runMlbInProcess(['validate'], env)).toEqual(runMlb(['validate'], env));
    expect(process.env.MLB_CONFIG).toBeUndefined();
    expect((await runMlbInProcess(['validate'])).status).toBe(2);
  });

  it('leaves the exit status of one run out of the next, and this process its own streams', async () => {
    const streams = [process.stdin, process.stdout, process.stderr];
    expect((await runMlbInProcess(['validate', '--config', INVALID])).status).toBe(1);
    expect((await runMlbInProcess(['validate', EXAMPLE])).status).toBe(0);
    expect(process.exitCode).toBeUndefined();
    [process.stdin, process.stdout, process.stderr].forEach((stream, i) => expect(stream).toBe(streams[i]));
  });
});
