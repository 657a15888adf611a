/**
 * `mlb man` and dist/mlb.1: a manual page in the man(7) macros that holds every visible command, every option of
 * `mlb daemon` as --help lists it, the examples whole, and the exit codes; groff reads it without a warning.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runMlb } from './run-cli';

const man = runMlb(['man']);

/** The long option names a --help text lists ("  -c, --config  ..." gives config). */
function helpOptions(help: string): string[] {
  return [...help.matchAll(/^\s+(?:-\w, )?--([\w-]+)\s/gm)].map((m) => m[1] as string);
}

/** The command words `mlb --help` lists ("  mlb daemon  Run the..." gives daemon). */
function helpCommands(help: string): string[] {
  return [...help.matchAll(/^ {2}mlb (\w+)/gm)].map((m) => m[1] as string);
}

describe('mlb man', () => {
  it('prints roff with a title line and the NAME, SYNOPSIS, COMMANDS and EXIT STATUS sections', () => {
    expect(man.status).toBe(0);
    expect(man.stdout).toMatch(/^\.TH MLB 1 "" "mlb \d+\.\d+\.\d+" "User Commands"\n/);
    for (const section of ['.SH NAME', '.SH SYNOPSIS', '.SH COMMANDS', '.SH "EXIT STATUS"']) expect(man.stdout).toContain(`\n${section}\n`);
  });

  it("has a section for every command `mlb --help` lists, and for lab's subcommands", () => {
    const commands = helpCommands(runMlb(['--help']).stdout);
    expect(commands).toEqual(expect.arrayContaining(['daemon', 'status', 'explain', 'check', 'completion', 'man']));
    for (const command of commands) expect(man.stdout).toMatch(new RegExp(`^\\.SS "mlb ${command}( [^"]*)?"$`, 'm'));
    for (const sub of ['up', 'down', 'demo']) expect(man.stdout).toContain(`.SS "mlb lab ${sub}"`);
    expect(man.stdout).not.toContain('mlb lab serve'); // hidden from --help, hidden here
  });

  it('lists every option of mlb daemon, with its description', () => {
    const options = helpOptions(runMlb(['daemon', '--help']).stdout).filter((o) => o !== 'help');
    expect(options.length).toBeGreaterThan(10);
    for (const option of options) expect(man.stdout).toContain(`\\fB\\-\\-${option.replace(/-/g, '\\-')}\\fR`);
    expect(man.stdout).toContain("This node's name in the cluster (the election hashes it)");
    // A build machine's hostname is no default to print in a manual.
    expect(man.stdout).toContain("\\-\\-node\\-name\\fR [string, default: this host's name]");
  });

  it('keeps each example command on a line of its own, and states the exit codes', () => {
    expect(man.stdout).toContain(
      '.nf\n\\fBmlb daemon \\-\\-config /etc/mlb/mlb.yaml \\-\\-node\\-name node\\-a \\-\\-gossip\\-bind 10.0.0.11:7946 \\-\\-join 10.0.0.12:7946,10.0.0.13:7946\\fR\n.fi\n',
    );
    expect(man.stdout).toContain('Exit codes: 0 ok, 1 failure');
    expect(man.stdout).toContain('0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN');
  });

  it.skipIf(spawnSync('groff', ['--version']).status !== 0)('is read by groff without a warning', () => {
    const run = spawnSync('groff', ['-man', '-Tutf8', '-ww', '-z'], { input: man.stdout, encoding: 'utf8' });
    expect(run).toMatchObject({ status: 0, stderr: '' });
  });

  it('is what the build wrote to dist/mlb.1', () => {
    expect(readFileSync(join(REPO_ROOT, 'dist', 'mlb.1'), 'utf8')).toBe(man.stdout);
  });
});
