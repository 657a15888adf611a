// Builds dist/mlb_<version>_<arch>.deb from dist/mlb (the one executable: `npm run dist`) with dpkg-deb, offline.
// `npm run deb` builds both. What the package holds and does:
// - /usr/bin/mlb; the unit /lib/systemd/system/mlb.service (systemd/mlb.service, running /usr/bin/mlb);
// - conffiles /etc/mlb/mlb.yaml (examples/plain-host.yaml, every line commented out: the daemon refuses to start on
//   it, rather than announce example addresses) and /etc/default/mlb (examples/mlb.env, the per-host lines
//   commented out); the examples themselves in /usr/share/doc/mlb/examples;
// - the man page and bash/zsh completions, made by the packaged mlb (`mlb man`, `mlb completion`);
// - maintainer scripts: the system group mlb (the control socket's), a gossip key /etc/mlb/gossip.key (0600) made
//   on the first install when there is none, and systemd handled as debhelper's dh_installsystemd does with
//   --no-enable: state recorded, a running daemon restarted on upgrade and stopped on removal, everything it made
//   removed on purge. The unit is not enabled nor started on first install: it cannot run before this host's
//   MLB_GOSSIP_BIND and the cluster's pools are set, and a unit failing at start would restart every 2 s.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { pkg } from './bundle-options.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const EXECUTABLE = join(root, 'dist', 'mlb');
const STAGE = join(root, 'dist', 'deb-root');
const PACKAGE = 'mlb';
const MAINTAINER = process.env.DEBEMAIL
  ? `${process.env.DEBFULLNAME ?? 'mlb maintainers'} <${process.env.DEBEMAIL}>`
  : 'mlb maintainers <mlb@example.org>';
/** The unit's ExecStart path in the repository (a hand install) and in the package. */
const HAND_INSTALLED = '/usr/local/bin/mlb';
const PACKAGED = '/usr/bin/mlb';
/** dpkg-deb's compressor for the data (see buildDeb). */
const DEB_COMPRESSION = 'gzip';

function sh(command, args, options = {}) {
  return execFileSync(command, args, { encoding: 'utf8', ...options }).trim();
}

function write(path, content, mode = 0o644) {
  const file = join(STAGE, path);
  mkdirSync(dirname(file), { recursive: true, mode: 0o755 });
  writeFileSync(file, content);
  chmodSync(file, mode);
}

/** gzip -9n: no name and no time stamp, so the same input gives the same package (Debian's reproducible builds). */
function gzip(content) {
  const gz = gzipSync(content, { level: 9 });
  gz.writeUInt32LE(0, 4); // MTIME
  return gz;
}

function commentedOut(text) {
  return text
    .split('\n')
    .map((line) => (line === '' ? '#' : line.startsWith('#') ? line : `# ${line}`))
    .join('\n')
    .replace(/#\n?$/, '');
}

function conffileConfig() {
  const example = readFileSync(join(root, 'examples/plain-host.yaml'), 'utf8');
  return `# /etc/mlb/mlb.yaml: the cluster's configuration, the same file on every host. Everything below is commented
# out, so mlb daemon refuses to start ("holds no objects") until you write your own pools and services: an example
# left as it is would announce its addresses on your network. Start from /usr/share/doc/mlb/examples/, then
#   mlb validate --config /etc/mlb/mlb.yaml
# Replace the file atomically (write a new file beside it, then rename it over this one): the daemon reloads it.
#
${commentedOut(example)}\n`;
}

function conffileDefaults() {
  const example = readFileSync(join(root, 'examples/mlb.env'), 'utf8');
  const perHost = /^(MLB_NODE_NAME|MLB_GOSSIP_BIND|MLB_JOIN)=/;
  const lines = example
    .trimEnd()
    .split('\n')
    .map((line) => (perHost.test(line) ? `#${line}` : line));
  return `# Set this host's lines below (MLB_GOSSIP_BIND at least: mlb daemon will not start without it), then
#   systemctl enable --now mlb
# MLB_NODE_NAME defaults to the host name.
${lines.join('\n')}\n`;
}

function unit() {
  const text = readFileSync(join(root, 'systemd/mlb.service'), 'utf8');
  const body = text.slice(text.indexOf('[Unit]'));
  if (!body.includes(`ExecStart=${HAND_INSTALLED} `))
    throw new Error(`build-deb: systemd/mlb.service no longer runs ${HAND_INSTALLED}; update build-deb.mjs`);
  return `# mlb from its Debian package: /usr/bin/mlb, the configuration in /etc/mlb/mlb.yaml (the same file on every
# host), the gossip key in /etc/mlb/gossip.key (made at install: copy one host's key to the others), and this
# host's name and addresses in /etc/default/mlb. Changes go in a drop-in: systemctl edit mlb.
${body.replaceAll(HAND_INSTALLED, PACKAGED)}`;
}

/** Output of `mlb <args>` when this build has the command, else undefined (the caller says what is left out). */
function generated(args, looksRight) {
  const run = spawnSync(EXECUTABLE, args, { encoding: 'utf8', env: { PATH: '/usr/bin:/bin', HOME: '/nonexistent', COLUMNS: '80' } });
  if (run.status !== 0 || !looksRight(run.stdout)) return undefined;
  return run.stdout;
}

function documentation() {
  const changelog = `${PACKAGE} (${pkg.version}) unstable; urgency=medium

  * Built from commit ${sh(EXECUTABLE, ['version']).match(/commit (\S+?),/)?.[1] ?? 'unknown'}.

 -- ${MAINTAINER}  ${new Date(Number(process.env.SOURCE_DATE_EPOCH ?? 0) * 1000 || Date.now()).toUTCString().replace(/GMT$/, '+0000')}
`;
  write('usr/share/doc/mlb/changelog.gz', gzip(changelog));
  write(
    'usr/share/doc/mlb/copyright',
    `Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: mlb
Comment: /usr/bin/mlb is Node.js ${process.version} (MIT, with the licences of the libraries it bundles:
 OpenSSL, libuv, V8, zlib, ICU and others, listed in Node.js's LICENSE) with mlb's bundled JavaScript and
 native addons embedded as a single executable application; the bundle includes yargs, yaml, pino, prom-client
 (MIT/ISC/Apache-2.0), ink and react (MIT) and netlink (MIT).

Files: *
Copyright: ${new Date().getUTCFullYear()} mlb authors
License: Apache-2.0
 On Debian systems, the full text of the Apache License 2.0 is in
 /usr/share/common-licenses/Apache-2.0.
`,
  );
  for (const example of ['plain-host.yaml', 'bgp.yaml', 'mlb.env']) {
    write(`usr/share/doc/mlb/examples/${example}`, readFileSync(join(root, 'examples', example)));
  }
}

/** The man page and completions, from the packaged mlb itself (the same command definitions as its --help). */
function manualAndCompletions() {
  const made = (args, looksRight) => {
    const out = generated(args, looksRight);
    if (!out) throw new Error(`build-deb: \`mlb ${args.join(' ')}\` printed nothing usable`);
    return out;
  };
  write('usr/share/man/man1/mlb.1.gz', gzip(made(['man'], (out) => /^\.(TH|\\")/m.test(out))));
  write(
    'usr/share/bash-completion/completions/mlb',
    made(['completion', 'bash'], (out) => out.includes('complete')),
  );
  write(
    'usr/share/zsh/vendor-completions/_mlb',
    made(['completion', 'zsh'], (out) => out.includes('compdef')),
  );
}

/**
 * Node.js links its own copy of zlib (Chromium's, with SIMD paths) into its binary, and /usr/bin/mlb is that binary
 * as it is. The tag's point stands: a zlib security fix reaches mlb only through a rebuild with a fixed Node.js.
 */
const LINTIAN_OVERRIDES = `# /usr/bin/mlb is a Node.js single executable application: Node.js builds its own zlib into its binary,
# so a zlib fix needs a rebuild of mlb with a fixed Node.js.
mlb: embedded-library zlib [usr/bin/mlb]
`;

const POSTINST = `#!/bin/sh
set -e

if [ "$1" = configure ]; then
	# The control socket's group: members run mlb status and mlb drain without root.
	if ! getent group mlb >/dev/null; then
		addgroup --system --quiet mlb
	fi
	# A gossip key on the first install only; every host of a cluster needs the same one: copy it.
	if [ ! -e /etc/mlb/gossip.key ]; then
		(umask 077 && head -c 32 /dev/urandom | base64 >/etc/mlb/gossip.key.dpkg-tmp)
		mv /etc/mlb/gossip.key.dpkg-tmp /etc/mlb/gossip.key
		echo "mlb: made /etc/mlb/gossip.key; copy the same key to every host of the cluster" >&2
	fi
fi

if [ "$1" = configure ] || [ "$1" = abort-upgrade ] || [ "$1" = abort-deconfigure ] || [ "$1" = abort-remove ]; then
	if command -v deb-systemd-helper >/dev/null; then
		deb-systemd-helper unmask mlb.service >/dev/null || true
		if deb-systemd-helper --quiet was-enabled mlb.service; then
			deb-systemd-helper enable mlb.service >/dev/null || true
		else
			deb-systemd-helper update-state mlb.service >/dev/null || true
		fi
	fi
	if [ -d /run/systemd/system ]; then
		systemctl --system daemon-reload >/dev/null || true
		if [ -n "$2" ]; then
			deb-systemd-invoke try-restart mlb.service >/dev/null || true
		else
			echo "mlb: set MLB_GOSSIP_BIND in /etc/default/mlb and your pools in /etc/mlb/mlb.yaml, then: systemctl enable --now mlb" >&2
		fi
	fi
fi

exit 0
`;

const PRERM = `#!/bin/sh
set -e

if [ -d /run/systemd/system ] && [ "$1" = remove ]; then
	deb-systemd-invoke stop mlb.service >/dev/null || true
fi

exit 0
`;

const POSTRM = `#!/bin/sh
set -e

if [ "$1" = remove ] && [ -d /run/systemd/system ]; then
	systemctl --system daemon-reload >/dev/null || true
fi

if [ "$1" = remove ] && command -v deb-systemd-helper >/dev/null; then
	deb-systemd-helper mask mlb.service >/dev/null || true
fi

if [ "$1" = purge ]; then
	if command -v deb-systemd-helper >/dev/null; then
		deb-systemd-helper purge mlb.service >/dev/null || true
		deb-systemd-helper unmask mlb.service >/dev/null || true
	fi
	# What the package made, not what it shipped: the key, the daemon's state. The group stays (files may still
	# belong to it), as Debian leaves system groups.
	rm -f /etc/mlb/gossip.key
	rmdir --ignore-fail-on-non-empty /etc/mlb 2>/dev/null || true
	rm -rf /var/lib/mlb
fi

exit 0
`;

/** Depends: what dpkg-shlibdeps finds /usr/bin/mlb linked against (libc, libstdc++, libgcc), and adduser. */
function depends() {
  const work = join(STAGE, '..', 'deb-shlibdeps');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(join(work, 'debian'), { recursive: true });
  writeFileSync(join(work, 'debian/control'), `Source: ${PACKAGE}\n\nPackage: ${PACKAGE}\nArchitecture: any\n`);
  const out = sh('dpkg-shlibdeps', ['-O', join(STAGE, 'usr/bin/mlb')], { cwd: work, stdio: ['ignore', 'pipe', 'pipe'] });
  rmSync(work, { recursive: true, force: true });
  const shlibs = out.match(/^shlibs:Depends=(.*)$/m)?.[1];
  if (!shlibs) throw new Error(`build-deb: dpkg-shlibdeps gave no dependencies: ${out}`);
  return `adduser, ${shlibs}`;
}

function installedSizeKiB() {
  let bytes = 0;
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'DEBIAN' && dir === STAGE) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else bytes += statSync(path).size;
    }
  };
  walk(STAGE);
  return Math.ceil(bytes / 1024);
}

function md5sums() {
  const lines = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!(dir === STAGE && entry.name === 'DEBIAN')) walk(path);
      } else if (!relative(STAGE, path).startsWith('etc/')) {
        lines.push(`${createHash('md5').update(readFileSync(path)).digest('hex')}  ${relative(STAGE, path)}`);
      }
    }
  };
  walk(STAGE);
  return `${lines.join('\n')}\n`;
}

export function buildDeb() {
  if (!existsSync(EXECUTABLE)) throw new Error('build-deb: dist/mlb is missing: run `npm run dist` first');
  rmSync(STAGE, { recursive: true, force: true });
  mkdirSync(STAGE, { recursive: true, mode: 0o755 });
  const arch = sh('dpkg', ['--print-architecture']);

  mkdirSync(join(STAGE, 'usr/bin'), { recursive: true, mode: 0o755 });
  copyFileSync(EXECUTABLE, join(STAGE, 'usr/bin/mlb'));
  chmodSync(join(STAGE, 'usr/bin/mlb'), 0o755);
  write('lib/systemd/system/mlb.service', unit());
  write('etc/mlb/mlb.yaml', conffileConfig());
  write('etc/default/mlb', conffileDefaults());
  documentation();
  write('usr/share/lintian/overrides/mlb', LINTIAN_OVERRIDES);
  manualAndCompletions();

  const control = `Package: ${PACKAGE}
Version: ${pkg.version}
Architecture: ${arch}
Maintainer: ${MAINTAINER}
Installed-Size: ${installedSizeKiB()}
Depends: ${depends()}
Section: net
Priority: optional
Description: highly available service IPs for bare-metal Linux hosts
 mlb gives services a highly available IP address on plain Linux hosts or
 Kubernetes nodes, with MetalLB's configuration objects, address allocation,
 node election and wire formats: one node answers ARP/NDP (or announces the
 address over BGP) for each service IP, and another takes over within about a
 second when it fails.
 .
 This package holds one executable with everything it needs (no Node.js
 required), the systemd unit, and example configurations.
`;
  write('DEBIAN/control', control);
  write('DEBIAN/conffiles', '/etc/default/mlb\n/etc/mlb/mlb.yaml\n');
  write('DEBIAN/md5sums', md5sums());
  write('DEBIAN/postinst', POSTINST, 0o755);
  write('DEBIAN/prerm', PRERM, 0o755);
  write('DEBIAN/postrm', POSTRM, 0o755);

  const output = join(root, 'dist', `${PACKAGE}_${pkg.version}_${arch}.deb`);
  // gzip: the executable is nearly all of the package, and dpkg-deb's default (xz -6) takes over a minute of CPU
  // on it for a package 30% smaller (23 MB instead of 34 MB); gzip takes 5 s.
  sh('dpkg-deb', ['--root-owner-group', `-Z${DEB_COMPRESSION}`, '--build', STAGE, output], { stdio: ['ignore', 'pipe', 'pipe'] });
  rmSync(STAGE, { recursive: true, force: true });
  console.log(`built ${relative(root, output)}`);
  return output;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) buildDeb();
