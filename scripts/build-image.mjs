// Builds an OCI container image of mlb offline with umoci (Debian's package): dist/oci, an OCI image layout with
// the tag mlb:<version>, and dist/mlb-oci.tar, the same layout as one file (podman load, skopeo copy oci-archive:).
// The image holds dist/mlb (`npm run dist`), the shared libraries it links (from this Debian host, as ldd finds
// them), a /tmp for the private copies of the native addons, and /etc/group with the control socket's group mlb.
// Its entrypoint is mlb; the default command `daemon` reads everything else from MLB_* variables and files
// mounted at /etc/mlb (the container needs the host network and CAP_NET_RAW, CAP_NET_ADMIN to announce).
// `npm run image` builds it.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pkg } from './bundle-options.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const EXECUTABLE = join(root, 'dist', 'mlb');
const LAYOUT = join(root, 'dist', 'oci');
const ARCHIVE = join(root, 'dist', 'mlb-oci.tar');
const BUNDLE = join(root, 'dist', 'oci-bundle');
const TAG = pkg.version;
/** The daemon's flags for the files a container mounts at /etc/mlb (MLB_* variables give the rest). */
const DAEMON_CMD = [
  'daemon',
  '--config',
  '/etc/mlb/mlb.yaml',
  '--gossip-key-file',
  '/etc/mlb/gossip.key',
  '--state-dir',
  '/var/lib/mlb',
  '--control-socket',
  '/run/mlb/mlb.sock',
];

function umoci(...args) {
  execFileSync('umoci', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

/** The libraries dist/mlb loads, each at the path the dynamic loader has it (the loader itself included). */
function sharedLibraries() {
  const ldd = execFileSync('ldd', [EXECUTABLE], { encoding: 'utf8' });
  return [...ldd.matchAll(/(\/\S+) \(0x/g)].map((m) => m[1]);
}

function fillRootfs(rootfs) {
  const put = (path, mode) => {
    mkdirSync(dirname(join(rootfs, path)), { recursive: true, mode: 0o755 });
    copyFileSync(path === '/usr/bin/mlb' ? EXECUTABLE : path, join(rootfs, path));
    chmodSync(join(rootfs, path), mode);
  };
  put('/usr/bin/mlb', 0o755);
  for (const library of sharedLibraries()) put(library, 0o755);
  for (const dir of ['etc/mlb', 'var/lib/mlb', 'run/mlb']) mkdirSync(join(rootfs, dir), { recursive: true, mode: 0o755 });
  mkdirSync(join(rootfs, 'tmp'), { recursive: true });
  chmodSync(join(rootfs, 'tmp'), 0o1777);
  writeFileSync(join(rootfs, 'etc/passwd'), 'root:x:0:0:root:/root:/usr/sbin/nologin\n');
  writeFileSync(join(rootfs, 'etc/group'), 'root:x:0:\nmlb:x:999:\n');
}

export function buildImage() {
  if (!existsSync(EXECUTABLE)) throw new Error('build-image: dist/mlb is missing: run `npm run dist` first');
  for (const path of [LAYOUT, BUNDLE, ARCHIVE]) rmSync(path, { recursive: true, force: true });
  const image = `${LAYOUT}:${TAG}`;
  umoci('init', '--layout', LAYOUT);
  umoci('new', '--image', image);
  umoci('unpack', '--image', image, BUNDLE);
  fillRootfs(join(BUNDLE, 'rootfs'));
  umoci('repack', '--image', image, BUNDLE);
  umoci(
    'config',
    '--image',
    image,
    '--config.entrypoint',
    '/usr/bin/mlb',
    ...DAEMON_CMD.flatMap((word) => ['--config.cmd', word]),
    '--config.workingdir',
    '/',
    '--config.env',
    'PATH=/usr/bin',
    '--config.label',
    `org.opencontainers.image.version=${pkg.version}`,
    '--config.label',
    'org.opencontainers.image.title=mlb',
  );
  umoci('gc', '--layout', LAYOUT);
  rmSync(BUNDLE, { recursive: true, force: true });
  execFileSync('tar', ['-C', LAYOUT, '-cf', ARCHIVE, '.']);
  console.log(`built dist/oci (mlb:${TAG}) and dist/mlb-oci.tar`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) buildImage();
