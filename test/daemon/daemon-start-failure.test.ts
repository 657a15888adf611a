/**
 * `mlb daemon` whose start fails exits non-zero by itself, with one line naming what failed on stderr and in the
 * JSON log: a gossip address no interface has, a directory with no configuration in it, a module that is not installed.
 * Before, the process printed the error and kept running with no control socket (systemd saw it as active).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { canUseNetns } from '../support/netns-lab';
import { REPO_ROOT } from '../cli/run-cli';
import { startDaemon, type RunningDaemon } from './run-daemon';
import { freeLoopbackPort } from '../support/free-port';

/** A generous bound for "exits by itself" on a loaded machine; the old behaviour never exited at all. */
const EXIT_TIMEOUT_MS = 15_000;
/** TEST-NET-1 (RFC 5737): never configured on a test machine, so binding it fails before anything is sent. */
const ABSENT_ADDRESS = '192.0.2.1';

const dir = mkdtempSync(join(tmpdir(), 'mlb-start-fail-'));
const running: RunningDaemon[] = [];
afterEach(() => {
  for (const d of running.splice(0)) d.child.kill('SIGKILL');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function daemon(name: string, extra: string[], options: { netns?: string; bundle?: string } = {}): RunningDaemon {
  const args = ['--node-name', name, '--state-dir', join(dir, name), '--control-socket', join(dir, `${name}.sock`), ...extra];
  const d = startDaemon(args, options.netns, [], options.bundle);
  running.push(d);
  return d;
}

async function exitCode(d: RunningDaemon): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(
            `still running after ${EXIT_TIMEOUT_MS} ms; log:\n${d.lines.map((l) => JSON.stringify(l)).join('\n')}\n${d.stderr.join('')}`,
          ),
        ),
      EXIT_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([d.exited(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The one startFailed log line and stderr both carry the message. */
function failure(d: RunningDaemon): { log: string; stderr: string } {
  const lines = d.lines.filter((l) => l.event === 'startFailed');
  expect(lines).toHaveLength(1);
  expect(lines[0]?.level).toBe('error');
  return { log: String(lines[0]?.msg), stderr: d.stderr.join('') };
}

describe('mlb daemon start failures', () => {
  it('exits 1 when the gossip address is on no interface, naming the address', async () => {
    const d = daemon('absent', ['--config', 'examples/plain-host.yaml', '--gossip-bind', `${ABSENT_ADDRESS}:7946`, '--no-announce']);
    expect(await exitCode(d)).toBe(1);
    const { log, stderr } = failure(d);
    expect(d.lines.find((l) => l.event === 'startFailed')).toMatchObject({
      step: `listening for gossip on ${ABSENT_ADDRESS}:7946 (--gossip-bind)`,
      errno: 'EADDRNOTAVAIL',
    });
    for (const text of [log, stderr]) {
      expect(text).toContain(`${ABSENT_ADDRESS}:7946 (--gossip-bind): no interface of this host has that address (EADDRNOTAVAIL)`);
    }
  });

  it('exits 1 when --config is a directory with no configuration in it, naming it', async () => {
    const d = daemon('config-dir', ['--config', dir, '--gossip-bind', `127.0.0.1:${await freeLoopbackPort()}`, '--no-announce']);
    expect(await exitCode(d)).toBe(1);
    const { log, stderr } = failure(d);
    // A directory's *.yaml files are one configuration; this one has none.
    expect(log).toContain(`${dir} is a directory with no *.yaml or *.yml file in it`);
    expect(stderr).toContain(`${dir} is a directory with no *.yaml or *.yml file in it`);
  });

  it('exits 1 when --gossip-key-file is a directory, naming it', async () => {
    const d = daemon('key-dir', [
      '--config',
      'examples/plain-host.yaml',
      '--gossip-key-file',
      dir,
      '--gossip-bind',
      `127.0.0.1:${await freeLoopbackPort()}`,
      '--no-announce',
    ]);
    expect(await exitCode(d)).toBe(1);
    const { log, stderr } = failure(d);
    expect(log).toContain(`cannot read --gossip-key-file ${dir}: it is a directory, not a file (EISDIR)`);
    expect(stderr).toContain(`--gossip-key-file ${dir}`);
  });

  const netns = canUseNetns();
  it.skipIf(!netns.ok)(`exits 1 when the netlink module is missing, naming it${netns.ok ? '' : ` (skipped: ${netns.why})`}`, async () => {
    // The bundle alone, outside the repository: nothing above it has a node_modules folder.
    const lonely = join(dir, 'bundle');
    mkdirSync(lonely);
    for (const f of readdirSync(join(REPO_ROOT, 'dist')).filter((n) => n.endsWith('.mjs') || n.endsWith('.node'))) {
      copyFileSync(join(REPO_ROOT, 'dist', f), join(lonely, f));
    }
    // Announcing needs netlink; it runs in a namespace of its own so nothing could reach the host's interfaces.
    const ns = `stup${process.pid}`;
    execFileSync('ip', ['netns', 'add', ns]);
    try {
      execFileSync('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
      const d = daemon('no-netlink', ['--config', join(REPO_ROOT, 'examples/plain-host.yaml'), '--gossip-bind', '127.0.0.1:7946'], {
        netns: ns,
        bundle: join(lonely, 'mlb.mjs'),
      });
      expect(await exitCode(d)).toBe(1);
      const { log, stderr } = failure(d);
      expect(log).toContain("starting ARP/NDP announcing: the Node.js module 'netlink' is not installed");
      expect(stderr).toContain("the Node.js module 'netlink' is not installed");
    } finally {
      execFileSync('ip', ['netns', 'del', ns]);
    }
  });
});
