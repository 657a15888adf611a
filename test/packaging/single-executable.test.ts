/**
 * dist/mlb, the one-file build, on a host without Node.js: each run here is in a mount namespace of its own where
 * node's binary is /dev/null (so nothing can fall back to it), from a copy of dist/mlb alone in an empty directory
 * (no node_modules, no dist/ beside it). `mlb version` and `mlb validate` work there; a daemon in a network
 * namespace parses its file in the worker thread, makes mlb0 and binds its VIP over netlink (netlink's embedded
 * binding) and answers ARP (mlb_native), which `mlb arping` from a client, the same executable, sees; `mlb status`
 * opens the embedded live view in a terminal. Every native module is loaded from a private unnamed copy: the
 * temporary directory is left empty.
 */
import { execFile, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../cli/run-cli';
import { seedPendingAndAnnounced, startTestCluster } from '../cli/cluster/cluster-setup';
import { TmuxPane, tmuxAvailable, waitForScreen } from '../cli/tui/tmux-pane';
import { startDaemon, type RunningDaemon } from '../daemon/run-daemon';
import { API_IP, API_SERVICE_YAML, LAB_POOL_YAML } from '../e2e/daemon-lab';
import { canUseNetns, NetnsLab, type LabHost } from '../support/netns-lab';
import { ensureSingleExecutable } from './single-executable-build';

const netns = canUseNetns();
const tmux = netns.ok ? tmuxAvailable() : netns;
/** The lab's pool and its L2Advertisement, and demo/api pinned to API_IP (as the plain-hosts tests use). */
const CONFIG = `${LAB_POOL_YAML}---\n${API_SERVICE_YAML}`;

/** Runs the rest of its arguments in a new mount namespace in which node's binary ($0) is /dev/null. */
const WITHOUT_NODE = ['unshare', '-m', '/bin/sh', '-c', 'mount --bind /dev/null "$0" && exec "$@"', process.execPath];
/** The PATH the commands get: nothing on it, node least of all. */
const NO_PATH = 'PATH=/nonexistent';

describe.skipIf(!netns.ok)(`dist/mlb on a host without Node.js${netns.ok ? '' : ` (skipped: ${netns.why})`}`, () => {
  let dir: string;
  let home: string;
  let temp: string;
  let mlb: string;

  /** `mlb <args>` without node, from the empty directory, with TMPDIR `temp`. */
  function run(args: string[], prefix: readonly string[] = []): { status: number | null; stdout: string; stderr: string } {
    const [file, ...rest] = [...WITHOUT_NODE, ...prefix, 'env', '-i', NO_PATH, `TMPDIR=${temp}`, mlb, ...args] as [string, ...string[]];
    const result = spawnSync(file, rest, { cwd: home, encoding: 'utf8' });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  }

  beforeAll(async () => {
    const built = await ensureSingleExecutable();
    dir = mkdtempSync(join(tmpdir(), 'mlb-sea-'));
    home = join(dir, 'home');
    temp = join(dir, 'tmp');
    mkdirSync(home);
    mkdirSync(temp, { mode: 0o700 });
    mlb = join(dir, 'mlb');
    copyFileSync(built, mlb);
    copyFileSync(join(REPO_ROOT, 'examples/plain-host.yaml'), join(home, 'mlb.yaml'));
  }, 600_000);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('has no node to fall back to', () => {
    const tried = spawnSync(WITHOUT_NODE[0]!, [...WITHOUT_NODE.slice(1), process.execPath, '--version'], { encoding: 'utf8' });
    expect(tried.status).not.toBe(0);
  });

  it('prints its version and checks a configuration file', () => {
    const version = run(['version']);
    expect(version.stderr).toBe('');
    expect(version.stdout).toMatch(/^mlb \d+\.\d+\.\d+ \(commit \S+, node v\d+\.\d+\.\d+\)\n$/);
    expect(version.status).toBe(0);

    const validate = run(['validate', '--config', 'mlb.yaml']);
    expect(validate.stdout).toContain('mlb.yaml: valid (2 pools');
    expect(validate.stdout).toMatch(/^demo\/web +192\.168\.10\.200 +lan +autoAssign$/m);
    expect(validate.status).toBe(0);
  });

  it('reads a cluster with the Kubernetes client it carries (loaded only by the commands that need it)', async () => {
    const cluster = await startTestCluster();
    try {
      seedPendingAndAnnounced(cluster);
      const kubeconfig = join(home, 'kubeconfig');
      copyFileSync(cluster.kubeconfig, kubeconfig);
      // Asynchronously: the fake API server answers from this process.
      const args = [...WITHOUT_NODE.slice(1), 'env', '-i', NO_PATH, `TMPDIR=${temp}`, mlb, 'status', '--kubeconfig', kubeconfig, '--once'];
      const status = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        execFile(WITHOUT_NODE[0]!, args, { cwd: home, encoding: 'utf8' }, (error, stdout, stderr) =>
          resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        );
      });
      expect(status.stderr).toBe('');
      expect(status.stdout).toMatch(/^default\/web\s+192\.0\.2\.1\s+public\s+node-b \(layer2\)$/m);
      expect(status.code).toBe(0);
    } finally {
      await cluster.close();
    }
  });

  it('runs the whole lab demo: every daemon and web server it starts is this same executable', () => {
    // The system's PATH this time, for ip and nft; node on it is /dev/null. A name of this run's own.
    const name = `mlbsea${process.pid % 100_000}`;
    const argv = [
      ...WITHOUT_NODE.slice(1),
      'env',
      '-i',
      'PATH=/usr/sbin:/usr/bin:/sbin:/bin',
      `TMPDIR=${temp}`,
      mlb,
      'lab',
      'demo',
      '--name',
      name,
      '--dir',
      join(dir, 'lab'),
    ];
    const demo = spawnSync(WITHOUT_NODE[0]!, argv, { cwd: home, encoding: 'utf8', timeout: 240_000 });
    expect(demo.stdout, demo.stderr).toMatch(/answers come from node-\d .*the client lost no request/);
    expect(demo.stdout).toMatch(/lab removed: 5 namespaces deleted/);
    expect(demo.status, demo.stdout + demo.stderr).toBe(0);
  }, 300_000);

  describe('a daemon in a network namespace', () => {
    let lab: NetnsLab;
    let node: LabHost;
    let client: LabHost;
    let daemon: RunningDaemon;
    const socket = () => join(dir, 'mlb.sock');

    beforeAll(async () => {
      lab = new NetnsLab();
      node = lab.addHost('node-1');
      client = lab.addHost('client');
      writeFileSync(join(dir, 'lab.yaml'), CONFIG);
      daemon = startDaemon(
        [
          '--config',
          join(dir, 'lab.yaml'),
          '--node-name',
          node.name,
          '--gossip-bind',
          `${node.ipv4}:7946`,
          '--state-dir',
          join(dir, 'state'),
          '--control-socket',
          socket(),
        ],
        node.netns,
        WITHOUT_NODE,
        mlb,
      );
    });
    afterAll(() => {
      daemon?.child.kill('SIGKILL');
      lab?.destroy();
    });

    it('parses its file, binds its VIP over netlink and answers ARP for it', async () => {
      await daemon.waitFor((l) => l.event === 'configLoaded', 60_000);
      await daemon.waitFor((l) => l.event === 'vipBound' && l.ip === API_IP, 30_000);
      await daemon.waitFor((l) => l.event === 'createARPResponder');

      const arping = run(['arping', '-c', '2', '--json', API_IP], ['ip', 'netns', 'exec', client.netns]);
      expect(arping.stderr).toBe('');
      const answer = JSON.parse(arping.stdout) as { replies: { mac: string }[] };
      expect(answer.replies.map((r) => r.mac)).toEqual([node.mac]);
      expect(arping.status).toBe(0);
      // The client's copy of mlb_native went nowhere another user could see it.
      expect(readdirSync(temp)).toEqual([]);
    });

    it.skipIf(!tmux.ok)(`shows the VIP and its owner in the live view${tmux.ok ? '' : ` (skipped: ${tmux.why})`}`, async () => {
      await daemon.waitFor((l) => l.event === 'vipBound' && l.ip === API_IP, 30_000);
      const pane = new TmuxPane([...WITHOUT_NODE, mlb, 'status', '--socket', socket()], { columns: 100, rows: 30, cwd: home });
      try {
        const screen = await waitForScreen(
          pane,
          (s) => (s.split('\n').some((l) => l.includes(` ${API_IP} `) && l.includes(node.name)) ? s : undefined),
          30_000,
        );
        expect(screen).toContain('demo/api');
        pane.type('q');
        await waitForScreen(pane, () => pane.exitStatus() ?? undefined);
        expect(pane.exitStatus()).toBe(0);
      } finally {
        pane.destroy();
      }
    });

    it('stops on SIGTERM with exit status 0', async () => {
      daemon.child.kill('SIGTERM');
      expect(await daemon.exited()).toBe(0);
    });
  });
});
