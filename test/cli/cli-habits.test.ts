/**
 * The CLI as people from kubectl, ip and systemctl expect it: `mlb` alone lists the commands, `--version`, the
 * configuration as a positional FILE, -f, `-` (standard input) or a directory, -o json|yaml|wide, and kubectl's
 * words answered with where the thing lives in mlb. Runs are in-process (runMlbInProcess, held byte-identical to
 * the executable by in-process-equivalence.test.ts) except where the process itself is the point: `mlb` alone's
 * exit status, a real pipe on standard input, the daemon.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { REPO_ROOT, runMlb, runMlbInProcess } from './run-cli';

const EXAMPLE = 'examples/plain-host.yaml';
const EXAMPLE_TEXT = readFileSync(join(REPO_ROOT, EXAMPLE), 'utf8');

const mlb = runMlbInProcess;

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The example split in two files of a directory, with a file that is not part of it. */
function exampleDirectory(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mlb-cli-conf-d-'));
  dirs.push(dir);
  const documents = EXAMPLE_TEXT.split(/^---\n/m);
  writeFileSync(join(dir, '10-pools.yaml'), documents.slice(0, 3).join('---\n'));
  writeFileSync(join(dir, '20-rest.yml'), documents.slice(3).join('---\n'));
  writeFileSync(join(dir, 'README'), 'not: [configuration\n');
  return dir;
}

describe('mlb alone and --version', () => {
  it('`mlb` alone prints the commands to stdout and exits 0, with no error line', () => {
    const run = runMlb([]);
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('Commands:');
    for (const command of ['daemon', 'validate', 'explain', 'status', 'version']) expect(run.stdout).toContain(`mlb ${command}`);
    expect(run.stdout).not.toContain('Name a command');
  });

  it('--version and -v print what `mlb version` prints (--json too)', async () => {
    const version = await mlb(['version']);
    expect(version.status).toBe(0);
    for (const flag of ['--version', '-v']) {
      const run = await mlb([flag]);
      expect({ status: run.status, stdout: run.stdout, stderr: run.stderr }).toEqual({ status: 0, stdout: version.stdout, stderr: '' });
    }
    expect((await mlb(['-v', '--json'])).stdout).toBe((await mlb(['version', '--json'])).stdout);
  });
});

describe('kubectl words', async () => {
  it('`mlb get services` says where services are listed in mlb, exit 2, and does not suggest lab', async () => {
    const run = await mlb(['get', 'services']);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      'mlb: "get" is not an mlb command: `mlb status --once` lists the services and their owners; `mlb validate FILE` shows what a file would allocate\n',
    );
  });

  it.each(['describe', 'logs', 'list', 'ls', 'show', 'ps', 'top', 'apply', 'edit'])(
    '`mlb %s` names the mlb command to use instead',
    async (word) => {
      const run = await mlb([word]);
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(new RegExp(`^mlb: "${word}" is not an mlb command: .*\`mlb (status|explain|validate|daemon)`));
      expect(run.stderr).not.toContain('did you mean');
    },
  );

  it('a short unknown word gets no far-fetched suggestion; a real typo still does', async () => {
    expect((await mlb(['run'])).stderr.split('\n')[0]).toBe('mlb: unknown command "run".');
    expect((await mlb(['stauts'])).stderr.split('\n')[0]).toBe('mlb: unknown command "stauts": did you mean status?');
  });
});

describe('naming the configuration', async () => {
  const summary = (stdout: string) =>
    stdout
      .split('\n')
      .find((l) => l.includes(': valid ('))
      ?.replace(/^\S+: /, '');

  it('validate FILE, -f FILE, -c FILE and --config FILE are the same', async () => {
    const runs = [];
    for (const args of [
      ['validate', EXAMPLE],
      ['validate', '-f', EXAMPLE],
      ['validate', '-c', EXAMPLE],
      ['validate', '--config', EXAMPLE],
    ])
      runs.push(await mlb(args));
    for (const run of runs) {
      expect(run.status).toBe(0);
      expect(run.stdout).toBe(runs[0]?.stdout);
    }
    expect(runs[0]?.stdout).toContain(`${EXAMPLE}: valid (`);
  });

  it('two --config flags are a usage error naming both, not a Node type error', async () => {
    // The daemon is run as itself: it is no command to start inside a test process.
    const runners = [
      [['validate'], mlb],
      [['explain'], mlb],
      [['daemon', '--gossip-bind', '127.0.0.1:7946'], runMlb],
    ] as const;
    for (const [command, runner] of runners) {
      const run = await runner([...command, '--config', EXAMPLE, '--config', 'examples/bgp.yaml']);
      expect(run.status).toBe(2);
      expect(run.stderr).toContain(`--config was given 2 times (${EXAMPLE}, examples/bgp.yaml)`);
      expect(run.stderr).not.toMatch(/TypeError|internal error/);
    }
  });

  it('validate without a configuration says how to name one', async () => {
    const run = await mlb(['validate']);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('mlb validate FILE (or -f FILE, --config FILE');
  });

  it('`-` and `--config -` read standard input; diagnostics say <stdin>:line:column', async () => {
    const file = await mlb(['validate', EXAMPLE]);
    for (const args of [
      ['validate', '-'],
      ['validate', '--config', '-'],
      ['validate', '-f', '-'],
    ]) {
      const run = await mlb(args, {}, EXAMPLE_TEXT);
      expect(run.status).toBe(0);
      expect(run.stdout).toBe(file.stdout.replaceAll(EXAMPLE, '<stdin>'));
    }
    // Once through a real pipe into the executable.
    expect(runMlb(['validate', '-'], {}, EXAMPLE_TEXT).stdout).toBe(file.stdout.replaceAll(EXAMPLE, '<stdin>'));
    const bad = await mlb(['validate', '-'], {}, 'apiVersion: v1\nkind: Servic\n');
    expect(bad.status).toBe(1);
    expect(bad.stdout).toContain('<stdin>:2:7: error: unknown kind "Servic"');
    const offline = await mlb(['explain', '--config', '-', '--json'], {}, EXAMPLE_TEXT);
    expect(offline.status).toBe(0);
    expect(JSON.parse(offline.stdout)).toEqual(JSON.parse((await mlb(['explain', '--config', EXAMPLE, '--json'])).stdout));
  });

  it('the daemon refuses standard input (it could never reload it) as a usage error', () => {
    const run = runMlb(['daemon', '--config', '-', '--gossip-bind', '127.0.0.1:7946']);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('cannot take its configuration from standard input');
  });

  it('a directory is its *.yaml and *.yml files in name order, one configuration', async () => {
    const dir = exampleDirectory();
    const run = await mlb(['validate', dir]);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(summary(run.stdout)).toBe(summary((await mlb(['validate', EXAMPLE])).stdout));
    const explain = await mlb(['explain', '-f', dir, '--json']);
    expect(JSON.parse(explain.stdout)).toEqual(JSON.parse((await mlb(['explain', '-f', EXAMPLE, '--json'])).stdout));
  });

  it('in a directory, file:line:column names the file the error is in and its own line', async () => {
    const dir = exampleDirectory();
    const rest = readFileSync(join(dir, '20-rest.yml'), 'utf8').split('\n');
    const line = rest.findIndex((l) => l === 'kind: Service') + 1;
    rest[line - 1] = 'kind: Servic';
    writeFileSync(join(dir, '20-rest.yml'), rest.join('\n'));
    const run = await mlb(['validate', dir, '--json']);
    expect(run.status).toBe(1);
    const errors = (JSON.parse(run.stdout) as { errors: { file: string; line: number; column: number; code: string }[] }).errors;
    expect(errors).toContainEqual(expect.objectContaining({ file: join(dir, '20-rest.yml'), line, column: 7 }));
  });
});

describe('-o json|yaml|wide', async () => {
  it('validate -o json is --json, and -o yaml carries the same fields', async () => {
    const json = await mlb(['validate', EXAMPLE, '--json']);
    expect((await mlb(['validate', EXAMPLE, '-o', 'json'])).stdout).toBe(json.stdout);
    const yaml = await mlb(['validate', EXAMPLE, '-o', 'yaml']);
    expect(yaml.status).toBe(0);
    expect(parseYaml(yaml.stdout)).toEqual(JSON.parse(json.stdout));
  });

  it("validate -o wide adds each pool's usage to the table", async () => {
    const run = await mlb(['validate', EXAMPLE, '-o', 'wide']);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^POOL +ADDRESSES +IN USE +AVAILABLE IPV4 +AVAILABLE IPV6$/m);
    expect(run.stdout).toMatch(/^lan +21 +\d+ +\d+ +0$/m);
    expect((await mlb(['validate', EXAMPLE])).stdout).not.toContain('AVAILABLE IPV4');
  });

  it('explain -o yaml carries what --json does', async () => {
    const json = await mlb(['explain', '-f', EXAMPLE, '--json']);
    const yaml = await mlb(['explain', '-f', EXAMPLE, '-o', 'yaml']);
    expect(yaml.status).toBe(0);
    expect(parseYaml(yaml.stdout)).toEqual(JSON.parse(json.stdout));
  });

  it('--json with -o yaml is a usage error, not a silent choice', async () => {
    const run = await mlb(['validate', EXAMPLE, '--json', '-o', 'yaml']);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('--json and -o yaml ask for two forms');
  });
});
