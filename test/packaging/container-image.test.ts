/**
 * The container image (scripts/build-image.mjs, built offline with umoci): unpacked as a container runtime would
 * unpack it, its root file system holds mlb and the libraries it links, nothing else of this machine's, and the
 * image's own command line (entrypoint /usr/bin/mlb, command `daemon` with the files under /etc/mlb) is what runs:
 * with `version` in place of the command it prints the version, and it checks a configuration mounted at /etc/mlb.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../cli/run-cli';
import { ensureSingleExecutable } from './single-executable-build';

function missingTools(): string | undefined {
  if (process.getuid?.() !== 0) return 'running the unpacked image (chroot) needs root';
  if (spawnSync('sh', ['-c', 'command -v umoci']).status === 0) return undefined;
  if (process.env.CI === 'true') throw new Error('umoci is missing but CI=true: .ci/run installs it');
  return 'umoci is not installed (apt-get install umoci)';
}
const skip = missingTools();

interface RuntimeSpec {
  process: { args: string[]; env: string[]; cwd: string };
}

describe.skipIf(skip !== undefined)(`the container image${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let dir: string;
  let rootfs: string;
  let spec: RuntimeSpec;
  let chroot: string;

  /** The image's process with `args` in place of its command, in its root file system and environment only. */
  function runImage(args: string[]): { status: number | null; stdout: string; stderr: string } {
    const [entrypoint] = spec.process.args;
    const env = Object.fromEntries(spec.process.env.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
    const run = spawnSync(chroot, [rootfs, entrypoint!, ...args], { encoding: 'utf8', env });
    return { status: run.status, stdout: run.stdout, stderr: run.stderr };
  }

  beforeAll(async () => {
    await ensureSingleExecutable();
    const built = execFileSync(process.execPath, ['scripts/build-image.mjs'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const tag = built.match(/\(mlb:(\S+)\)/)![1]!;
    dir = mkdtempSync(join(tmpdir(), 'mlb-image-'));
    execFileSync('umoci', ['unpack', '--image', `${REPO_ROOT}dist/oci:${tag}`, join(dir, 'bundle')], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    rootfs = join(dir, 'bundle', 'rootfs');
    spec = JSON.parse(readFileSync(join(dir, 'bundle', 'config.json'), 'utf8')) as RuntimeSpec;
    chroot = execFileSync('sh', ['-c', 'command -v chroot'], { encoding: 'utf8' }).trim();
  }, 600_000);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('runs mlb daemon with the files under /etc/mlb by default', () => {
    expect(spec.process.args).toEqual([
      '/usr/bin/mlb',
      'daemon',
      '--config',
      '/etc/mlb/mlb.yaml',
      '--gossip-key-file',
      '/etc/mlb/gossip.key',
      '--state-dir',
      '/var/lib/mlb',
      '--control-socket',
      '/run/mlb/mlb.sock',
    ]);
    expect(existsSync(join(rootfs, 'usr/bin/node'))).toBe(false);
    expect(readFileSync(join(rootfs, 'etc/group'), 'utf8')).toMatch(/^mlb:x:\d+:$/m);
  });

  it('prints its version and checks a configuration mounted at /etc/mlb', () => {
    const version = runImage(['version']);
    expect(version.stdout).toMatch(/^mlb \d+\.\d+\.\d+ \(commit \S+, node v[\d.]+\)\n$/);
    expect(version.status).toBe(0);

    copyFileSync(join(REPO_ROOT, 'examples/plain-host.yaml'), join(rootfs, 'etc/mlb/mlb.yaml'));
    const validate = runImage(['validate', '--config', '/etc/mlb/mlb.yaml']);
    expect(validate.stdout).toContain('/etc/mlb/mlb.yaml: valid (2 pools');
    expect(validate.status).toBe(0);
  });
});
