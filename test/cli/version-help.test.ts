import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runMlb } from './run-cli';

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

  it('lists the commands in --help', () => {
    const run = runMlb(['--help']);
    expect(run.status).toBe(0);
    for (const command of ['validate', 'explain', 'version']) expect(run.stdout).toContain(`mlb ${command}`);
  });

  it('exits 2 with a hint on usage errors', () => {
    const noCommand = runMlb([]);
    expect(noCommand.status).toBe(2);
    expect(noCommand.stderr).toContain('Name a command');
    const unknownFlag = runMlb(['validate', '--config', 'examples/plain-host.yaml', '--bogus']);
    expect(unknownFlag.status).toBe(2);
    expect(unknownFlag.stderr).toMatch(/Unknown argument: bogus/);
    expect(unknownFlag.stderr).toContain('mlb validate --help');
    expect(runMlb(['validate']).status).toBe(2);
  });
});
