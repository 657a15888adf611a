/**
 * `mlb completion bash|zsh` as a shell uses it: the script is loaded into a real bash (and zsh when installed),
 * with `mlb` on PATH being this checkout's bundle, and asked to complete what a user has typed. The scripts
 * themselves are printed in-process (runMlbInProcess, byte-identical to the executable:
 * in-process-equivalence.test.ts); the shells call the executable.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MLB_BUNDLE, runMlbInProcess } from './run-cli';

/** A directory whose `mlb` runs the bundle, as an installed mlb would be found on PATH. */
const bin = mkdtempSync(join(tmpdir(), 'mlb-completion-'));
writeFileSync(join(bin, 'mlb'), `#!/bin/sh\nexec "${process.execPath}" "${MLB_BUNDLE}" "$@"\n`);
chmodSync(join(bin, 'mlb'), 0o755);
afterAll(() => rmSync(bin, { recursive: true, force: true }));

const env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, SHELL: '/bin/zsh' };

function hasShell(name: string): boolean {
  return spawnSync(name, ['-c', 'true']).status === 0;
}

describe('mlb completion bash', () => {
  const printing = runMlbInProcess(['completion', 'bash']);

  /** The candidates bash would offer for `words`, the cursor on the last one. */
  async function complete(words: string[]): Promise<string[]> {
    const script = await printing;
    const run = spawnSync(
      'bash',
      [
        '-c',
        `${script.stdout}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _mlb_completions; printf '%s\\n' "\${COMPREPLY[@]}"; complete -p mlb`,
      ],
      { env, encoding: 'utf8' },
    );
    expect(run.stderr).toBe('');
    return run.stdout.trimEnd().split('\n');
  }

  it('prints a script that registers itself for mlb', async () => {
    expect((await printing).status).toBe(0);
    expect(await complete(['mlb', ''])).toContain('complete -o default -F _mlb_completions mlb');
  });

  it('completes command names, even with a zsh login shell', async () => {
    expect((await complete(['mlb', 'st'])).slice(0, -1)).toEqual(['status']);
    expect((await complete(['mlb', ''])).slice(0, -1)).toEqual(expect.arrayContaining(['status', 'explain', 'check', 'daemon']));
  });

  it("completes a command's options", async () => {
    expect((await complete(['mlb', 'explain', '--j'])).slice(0, -1)).toEqual(['--json']);
    expect((await complete(['mlb', 'daemon', '--gossip-b'])).slice(0, -1)).toEqual(['--gossip-bind']);
  });

  it('refuses a shell it has no script for (usage error, exit 2)', async () => {
    expect((await runMlbInProcess(['completion', 'fish'])).status).toBe(2);
  });
});

describe('mlb completion zsh', () => {
  const printing = runMlbInProcess(['completion', 'zsh']);

  it('prints a #compdef script that registers _mlb with compdef', async () => {
    const script = await printing;
    expect(script.status).toBe(0);
    expect(script.stdout.startsWith('#compdef mlb\n')).toBe(true);
    expect(script.stdout).toContain('compdef _mlb mlb');
  });

  it.skipIf(!hasShell('zsh'))('is valid zsh, and offers commands with their descriptions', async () => {
    const script = await printing;
    const file = join(bin, '_mlb');
    writeFileSync(file, script.stdout);
    expect(spawnSync('zsh', ['-n', file], { encoding: 'utf8' })).toMatchObject({ status: 0, stderr: '' });
    // Outside an interactive completion, stand-ins for compsys' compdef and _describe print what would be offered.
    const run = spawnSync(
      'zsh',
      [
        '-c',
        `compdef() { print -r -- "compdef $*" }; _describe() { print -rl -- "\${(@P)2}" }; source ${file}; words=(mlb st); CURRENT=2; _mlb`,
      ],
      { env: { ...env, SHELL: '/bin/bash' }, encoding: 'utf8' },
    );
    expect(run.stderr).toBe('');
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('compdef _mlb mlb');
    expect(lines).toContain(
      'status:Show who owns each service IP, the members and their state, from the running daemon (live in a terminal)',
    );
  });
});
