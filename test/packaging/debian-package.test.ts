/**
 * The Debian package (scripts/build-deb.mjs), as an administrator meets it:
 * - `dpkg -i` in a throwaway root (an overlay over this machine's root, in a mount namespace of its own, with node
 *   removed): mlb version and mlb validate work; the shipped /etc/mlb/mlb.yaml is inert (mlb refuses it rather
 *   than announce example addresses); the group mlb and a private gossip key exist; both files under /etc are
 *   conffiles; a reinstall keeps the key; a purge removes the key and the executable.
 * - In an otherwise empty root holding only the package's files and the libraries its Depends name, mlb runs.
 * - lintian finds no error.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../cli/run-cli';
import { ensureSingleExecutable } from './single-executable-build';

function missingTools(): string | undefined {
  if (process.getuid?.() !== 0) return 'installing a package in a throwaway root needs root';
  const missing = ['dpkg-deb', 'dpkg-shlibdeps', 'unshare', 'chroot'].filter(
    (tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0,
  );
  if (missing.length === 0) return undefined;
  if (process.env.CI === 'true') throw new Error(`${missing.join(', ')} missing but CI=true: .ci/run installs them`);
  return `${missing.join(', ')} not installed`;
}
const skip = missingTools();
const lintian = spawnSync('sh', ['-c', 'command -v lintian']).status === 0;
if (!lintian && process.env.CI === 'true') throw new Error('lintian is missing but CI=true: .ci/run installs it');

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

describe.skipIf(skip !== undefined)(`the Debian package${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let deb: string;
  let dir: string;

  beforeAll(async () => {
    await ensureSingleExecutable();
    const built = execFileSync(process.execPath, ['scripts/build-deb.mjs'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    deb = join(REPO_ROOT, built.match(/^built (\S+\.deb)$/m)![1]!);
    dir = mkdtempSync(join(tmpdir(), 'mlb-deb-'));
  }, 900_000);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  describe('installed with dpkg into a throwaway root without node', () => {
    /** The overlay's writable layer: what the install changed, kept between the steps below. */
    const layer = () => join(dir, 'layer');

    /** Runs `script` as root in the throwaway root: this machine's / under an overlay, with /dev and /proc. */
    function inRoot(script: string): Run {
      const merged = join(layer(), 'merged');
      const mountAndChroot = [
        'set -e',
        `mount -t overlay overlay -o lowerdir=/,upperdir=${layer()}/upper,workdir=${layer()}/work ${merged}`,
        `mount --rbind /dev ${merged}/dev`,
        `mount -t proc proc ${merged}/proc`,
        `exec chroot ${merged} /bin/sh -c "$0"`,
      ].join('\n');
      const run = spawnSync('unshare', ['-m', '/bin/sh', '-c', mountAndChroot, script], {
        encoding: 'utf8',
        env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C.UTF-8' },
      });
      return { status: run.status, stdout: run.stdout, stderr: run.stderr };
    }

    beforeAll(() => {
      for (const sub of ['upper', 'work', 'merged']) mkdirSync(join(layer(), sub), { recursive: true });
      mkdirSync(join(layer(), 'upper', 'tmp'), { recursive: true });
      copyFileSync(deb, join(layer(), 'upper', 'tmp', 'mlb.deb'));
      // No node in this root, and services are not started by maintainer scripts (Debian's policy-rc.d).
      const prepared = inRoot(
        'rm -f "$(command -v node)" && ! command -v node && printf "#!/bin/sh\\nexit 101\\n" >/usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d',
      );
      expect(prepared.stderr).toBe('');
      expect(prepared.status).toBe(0);
    });

    it('installs, and mlb version and mlb validate run from /usr/bin/mlb', () => {
      const install = inRoot('dpkg -i /tmp/mlb.deb');
      expect(install.status, install.stderr).toBe(0);
      expect(install.stderr).toContain('made /etc/mlb/gossip.key');

      const version = inRoot('cd /tmp && mlb version');
      expect(version.stdout).toMatch(/^mlb \d+\.\d+\.\d+ \(commit \S+, node v[\d.]+\)$/m);
      expect(version.status).toBe(0);

      const example = inRoot('mlb validate --config /usr/share/doc/mlb/examples/plain-host.yaml');
      expect(example.stdout).toContain('plain-host.yaml: valid (2 pools');
      expect(example.status).toBe(0);

      // The shipped configuration is all comments: the daemon would refuse it, not announce example addresses.
      const shipped = inRoot('mlb validate --config /etc/mlb/mlb.yaml 2>&1');
      expect(shipped.stdout).toContain('/etc/mlb/mlb.yaml holds no objects');
      expect(shipped.status).toBe(1);
    });

    it('made the group mlb and a gossip key only root can read; the files under /etc are conffiles', () => {
      const facts = inRoot(
        [
          'getent group mlb >/dev/null && echo group=yes',
          'echo key=$(stat -c %a:%U /etc/mlb/gossip.key):$(base64 -d /etc/mlb/gossip.key | wc -c)',
          // eslint-disable-next-line no-template-curly-in-string -- dpkg-query's own format field, not a template
          "dpkg-query -W -f='${Conffiles}\\n' mlb | awk 'NF {print \"conffile=\" $1}'",
          'grep ^ExecStart= /lib/systemd/system/mlb.service',
        ].join(' && '),
      );
      expect(facts.stderr).toBe('');
      expect(facts.stdout.trim().split('\n')).toEqual([
        'group=yes',
        'key=600:root:32',
        'conffile=/etc/default/mlb',
        'conffile=/etc/mlb/mlb.yaml',
        expect.stringMatching(/^ExecStart=\/usr\/bin\/mlb daemon --config \/etc\/mlb\/mlb.yaml --gossip-key-file \/etc\/mlb\/gossip.key /),
      ]);
    });

    it('keeps the gossip key on reinstall, and purge removes it with the executable', () => {
      const before = inRoot('md5sum /etc/mlb/gossip.key').stdout;
      const again = inRoot('dpkg -i /tmp/mlb.deb');
      expect(again.status, again.stderr).toBe(0);
      expect(inRoot('md5sum /etc/mlb/gossip.key').stdout).toBe(before);

      const purge = inRoot('dpkg --purge mlb');
      expect(purge.status, purge.stderr).toBe(0);
      const left = inRoot(
        'for f in /usr/bin/mlb /etc/mlb/gossip.key /etc/mlb/mlb.yaml /lib/systemd/system/mlb.service; do [ -e $f ] && echo $f; done; true',
      );
      expect(left.stdout).toBe('');
    });
  });

  it('runs in a root holding only its own files and the libraries it depends on', () => {
    const root = join(dir, 'bare');
    execFileSync('dpkg-deb', ['-x', deb, root]);
    // The manual page and both completions ship with it.
    for (const file of [
      'usr/share/man/man1/mlb.1.gz',
      'usr/share/bash-completion/completions/mlb',
      'usr/share/zsh/vendor-completions/_mlb',
    ]) {
      expect(statSync(join(root, file)).size, file).toBeGreaterThan(100);
    }
    const mlb = join(root, 'usr/bin/mlb');
    // ldd names each library with its path: the same paths in the bare root.
    const libraries = execFileSync('ldd', [mlb], { encoding: 'utf8' }).matchAll(/(\/\S+) \(0x/g);
    for (const [, library] of libraries) {
      mkdirSync(join(root, dirname(library!)), { recursive: true });
      copyFileSync(library!, join(root, library!));
    }
    // Nothing from this machine's environment (no PATH): the root's own files only.
    const chroot = execFileSync('sh', ['-c', 'command -v chroot'], { encoding: 'utf8' }).trim();
    const version = spawnSync(chroot, [root, '/usr/bin/mlb', 'version'], { encoding: 'utf8', env: {} });
    expect(version.stdout).toMatch(/^mlb \d+\.\d+\.\d+ /);
    expect(version.status).toBe(0);
    const validate = spawnSync(chroot, [root, '/usr/bin/mlb', 'validate', '--config', '/usr/share/doc/mlb/examples/plain-host.yaml'], {
      encoding: 'utf8',
      env: {},
    });
    expect(validate.stdout).toContain('valid (2 pools');
    expect(validate.status).toBe(0);
    expect(existsSync(join(root, 'usr/bin/node'))).toBe(false);
  });

  it.skipIf(!lintian)(
    `passes lintian without an error${lintian ? '' : ' (skipped: lintian is not installed)'}`,
    () => {
      const run = spawnSync('lintian', ['--fail-on', 'error', deb], { encoding: 'utf8' });
      const errors = run.stdout.split('\n').filter((line) => line.startsWith('E:'));
      expect(errors).toEqual([]);
      expect(run.status).toBe(0);
    },
    600_000,
  );
});
