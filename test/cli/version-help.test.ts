import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runMlb, runMlbInProcess } from './run-cli';

describe('mlb version and help', () => {
  it('prints the version and the git commit it was built from, never "dev"', () => {
    const run = runMlb(['version', '--json']);
    expect(run.status).toBe(0);
    const info = JSON.parse(run.stdout) as { version: string; commit: string };
    expect(info.version).toMatch(/^\d+\.\d+\.\d+/);
    const head = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
    expect(info.commit.startsWith(head)).toBe(true);
    expect(runMlb(['version']).stdout).toContain(`commit ${info.commit}`);
  });

  it('lists the commands in --help', async () => {
    const run = await runMlbInProcess(['--help']);
    expect(run.status).toBe(0);
    for (const command of ['validate', 'explain', 'version']) expect(run.stdout).toContain(`mlb ${command}`);
  });

  it('exits 2 with a hint on usage errors', async () => {
    // `mlb` alone is no usage error: it prints the help (cli-habits.test.ts).
    const unknownFlag = await runMlbInProcess(['validate', '--config', 'examples/plain-host.yaml', '--bogus']);
    expect(unknownFlag.status).toBe(2);
    expect(unknownFlag.stderr).toMatch(/Unknown argument: bogus/);
    expect(unknownFlag.stderr).toContain('mlb validate --help');
    expect(runMlb(['validate']).status, "the executable's own exit status").toBe(2);
  });

  it('answers a mistyped command with the suggestion and the commands, not with its --help', async () => {
    const typo = await runMlbInProcess(['stauts']);
    expect(typo.status).toBe(2);
    expect(typo.stdout).toBe('');
    const [first, , ...list] = typo.stderr.trimEnd().split('\n');
    expect(first).toBe('mlb: unknown command "stauts": did you mean status?');
    expect(list[0]).toBe('Commands:');
    expect(list.slice(1).map((l) => l.trim().split(/\s+/)[1])).toEqual([
      'daemon',
      'controller',
      'validate',
      'explain',
      'arping',
      'status',
      'drain',
      'undrain',
      'warmup',
      'lab',
      'version',
      'check',
      'install',
      'completion',
      'man',
    ]);
    expect(typo.stderr).not.toContain('--help');
    const unknown = await runMlbInProcess(['frobnicate']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr.split('\n')[0]).toBe('mlb: unknown command "frobnicate".');
    expect(unknown.stderr).toContain('  mlb validate');
    expect(unknown.stderr).not.toContain('--help');
  });
});
