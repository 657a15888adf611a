/**
 * `mlb validate` on files the daemon would refuse to read: empty, cut off, a FIFO, over the size limit. Each must
 * exit 1 with a reason naming the file (never "valid", never a hang), so validating a file says what a running
 * daemon would do with it. Runs are in-process (runMlbInProcess, byte-identical to the executable:
 * in-process-equivalence.test.ts), except the FIFO, where the process not hanging is the point.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { renderTable } from '../../src/cli/render-table';
import { REPO_ROOT, runMlbInProcess } from './run-cli';

const dir = mkdtempSync(join(tmpdir(), 'mlb-validate-limits-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const EXAMPLE = readFileSync(`${REPO_ROOT}examples/plain-host.yaml`, 'utf8');

function fileWith(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

interface Report {
  valid: boolean;
  errors: { code: string; message: string }[];
}

describe('mlb validate refuses files a daemon would not run', () => {
  it.each([
    ['empty', ''],
    ['comments only', '# the configuration will go here\n'],
  ])('an %s file: exit 1, "holds no objects", not "valid"', async (name, text) => {
    const path = fileWith(`${name.replace(' ', '-')}.yaml`, text);
    const run = await runMlbInProcess(['validate', '--config', path]);
    expect(run.status).toBe(1);
    expect(run.stdout).toContain(`error: ${path} holds no objects`);
    expect(run.stdout).not.toContain('valid (');
    const json = await runMlbInProcess(['validate', '--config', path, '--json']);
    expect(json.status).toBe(1);
    const report = JSON.parse(json.stdout) as Report;
    expect(report.valid).toBe(false);
    expect(report.errors.map((e) => e.code)).toEqual(['fileEmpty']);
  });

  it('a file cut off mid-document (no final newline): exit 1 with where it ends', async () => {
    const path = fileWith('cut.yaml', EXAMPLE.slice(0, 515));
    const run = await runMlbInProcess(['validate', '--config', path]);
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(new RegExp(`^${path}:\\d+:\\d+: error: ${path} does not end with a newline`, 'm'));
  });

  it('a FIFO: exit 1 at once, without waiting for a writer', () => {
    const path = join(dir, 'pipe.yaml');
    expect(spawnSync('mkfifo', [path]).status).toBe(0);
    const run = spawnSync(process.execPath, [`${REPO_ROOT}dist/mlb.mjs`, 'validate', '--config', path], {
      encoding: 'utf8',
      timeout: 20_000,
      env: { ...process.env, FORCE_COLOR: '0' },
    });
    expect(run.signal).toBeNull(); // not killed by the timeout: the FIFO was never opened for a blocking read
    expect(run.status).toBe(1);
    expect(run.stdout).toContain(`error: ${path} is a FIFO (named pipe), not a regular file`);
  });

  it('a file over --max-config-bytes (or MLB_MAX_CONFIG_BYTES): exit 1 naming the flag; raising it validates', async () => {
    const path = fileWith('big.yaml', EXAMPLE);
    const limit = String(EXAMPLE.length - 1);
    const flag = await runMlbInProcess(['validate', '--config', path, '--max-config-bytes', limit]);
    expect(flag.status).toBe(1);
    expect(flag.stdout).toContain(`error: ${path} is ${EXAMPLE.length} bytes, more than the limit of ${limit} bytes`);
    expect(flag.stdout).toContain('raise --max-config-bytes (MLB_MAX_CONFIG_BYTES)');
    expect((await runMlbInProcess(['validate', '--config', path], { MLB_MAX_CONFIG_BYTES: limit })).status).toBe(1);
    expect((await runMlbInProcess(['validate', '--config', path, '--max-config-bytes', String(EXAMPLE.length)])).status).toBe(0);
  });

  it('a --max-config-bytes that is not a positive number of bytes is a usage error (exit 2)', async () => {
    const run = await runMlbInProcess(['validate', '--config', 'examples/plain-host.yaml', '--max-config-bytes', '0']);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('--max-config-bytes must be a positive whole number of bytes');
  });
});

describe('the allocation table of a very large configuration', () => {
  it('renders 200 000 rows (a spread of every row into Math.max overflowed the stack)', () => {
    const rows = Array.from({ length: 200_000 }, (_, i) => [`demo/s${i}`, '-', '-', 'AllocationFailed']);
    const table = renderTable(['SERVICE', 'IPS', 'POOL', 'WHY'], rows);
    expect(table.split('\n')[200_000]).toBe('demo/s199999  -    -     AllocationFailed');
  });
});
