/**
 * The one-file dist/mlb installs itself: with no --binary, `mlb install` copies the running executable to
 * /usr/local/bin/mlb (under a temporary --root), and the copy runs.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../cli/run-cli';
import { ensureSingleExecutable } from '../packaging/single-executable-build';

let executable: string;
let work: string;
beforeAll(async () => {
  executable = await ensureSingleExecutable();
  work = mkdtempSync(join(tmpdir(), 'mlb-install-sea-'));
}, 600_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

const sha256 = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

describe('dist/mlb install', () => {
  it('copies itself to /usr/local/bin/mlb (0755), and the copy runs', () => {
    const root = join(work, 'root');
    const run = spawnSync(
      executable,
      [
        'install',
        '--root',
        root,
        '--yes',
        '--no-start',
        '--first-host',
        '--node-name',
        'node-a',
        '--gossip-bind',
        '192.168.10.11',
        '--config',
        join(REPO_ROOT, 'examples/plain-host.yaml'),
      ],
      { encoding: 'utf8' },
    );
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const installed = join(root, 'usr/local/bin/mlb');
    expect(statSync(installed).mode & 0o7777).toBe(0o755);
    expect(sha256(installed)).toBe(sha256(executable));
    expect(run.stdout).toContain(': valid (2 pools');
    const version = spawnSync(installed, ['version'], { encoding: 'utf8' });
    expect(version.stdout).toMatch(/^mlb \d+\.\d+\.\d+ /);
  });
});
