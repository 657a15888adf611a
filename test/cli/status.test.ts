/**
 * `mlb status` against a daemon's control socket (a fake provider behind the real server): the snapshot as JSON,
 * tables that fit 80 columns, and what a user is told when the daemon cannot be reached.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlServer } from '../../src/daemon/control';
import { exampleSnapshot, FakeProvider, runMlbAsync, silentLogger, socketDir, startFakeDaemon } from '../daemon/control/fake-daemon';
import { MLB_BUNDLE, REPO_ROOT } from './run-cli';

const sockets = socketDir();
const path = join(sockets.dir, 'mlb.sock');
let server: ControlServer;
beforeAll(async () => {
  ({ server } = await startFakeDaemon(path));
});
afterAll(async () => {
  await server.close();
  sockets.remove();
});

describe('mlb status', () => {
  it("--json prints the daemon's snapshot unchanged", async () => {
    const run = await runMlbAsync(['status', '--socket', path, '--json']);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(exampleSnapshot());
  });

  it('--once prints the summary, services, members and conflicts within 80 columns', async () => {
    const run = await runMlbAsync(['status', '--socket', path, '--once']);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const lines = run.stdout.split('\n');
    const tooWide = lines.filter((l) => l.length > 80);
    expect(tooWide).toEqual([]);
    expect(run.stdout).toMatch(/^node +node-a \(mlb 0\.1\.0, up 2h20m\)$/m);
    expect(run.stdout).toMatch(/^cluster +2\/4 members alive/m);
    expect(run.stdout).toMatch(/^config +STALE \/etc\/mlb\/mlb\.yaml/m);
    expect(run.stdout).toMatch(/^ +- \/etc\/mlb\/mlb\.yaml:12:7: spec\.addresses\[0\]: invalid CIDR\s+"10\.0\.0\.300\/32"$/m);
    expect(lines).toContainEqual(expect.stringMatching(/^SERVICE +IP +PROTOCOL +OWNER +SINCE +HEALTH$/));
    expect(lines).toContainEqual(expect.stringMatching(/^demo\/web +192\.168\.10\.200 +layer2 +node-a +5m +2\/3 ok$/));
    // The long name is cut, the IPv6 address never is, and both IPs of the service get a row.
    expect(lines).toContainEqual(expect.stringMatching(/^a-namesp\S*… +fd00:10::1234:5678:9abc:def0 +bgp +node-a,\S+ +2d2h +-$/));
    expect(lines).toContainEqual(expect.stringMatching(/ 192\.168\.10\.201 +bgp /));
    expect(lines).toContainEqual(expect.stringMatching(/^demo\/nobody +- +layer2 +NOBODY +- +-$/));
    expect(run.stdout).toContain('demo/nobody: poolExhausted: no available IPs in pool "small"');
    expect(lines).toContainEqual(expect.stringMatching(/^NAME +STATE +LABELS +FLAGS$/));
    expect(lines).toContainEqual(expect.stringMatching(/^metallb-speaker-xyz +suspect +- +metallb$/));
    expect(lines).toContainEqual(expect.stringMatching(/^node-a +alive +zone=a +self$/));
    expect(lines).toContainEqual(expect.stringMatching(/^node-b +alive +kubernetes\.io\/hostname=node-b,\S*… +warming-up$/));
    expect(run.stdout).toMatch(
      /^CONFLICTS: another MAC answers[^]*?\nIP +MAC +NODE +INTERFACE +SEEN BY +LAST SEEN\n192\.168\.10\.200 +02:42:ac:11:00:99 +not a member +eth0 +node-a +30s ago\n/m,
    );
  });

  it('without a terminal (a pipe, a script) plain `mlb status` prints the --once tables, and nothing else', async () => {
    const [plain, once] = await Promise.all([
      runMlbAsync(['status', '--socket', path]),
      runMlbAsync(['status', '--socket', path, '--once']),
    ]);
    expect(plain.status).toBe(0);
    expect(plain.stdout).toBe(once.stdout);
    expect(plain.stderr).toBe('');
  });

  /** dist/mlb.mjs and the files it is split into (one per command, scripts/build.mjs): mlb without its extras. */
  const bundleText = (): string =>
    [
      MLB_BUNDLE,
      ...readdirSync(join(REPO_ROOT, 'dist'))
        .filter((f) => /^mlb-part-.*\.mjs$/.test(f))
        .map((f) => join(REPO_ROOT, 'dist', f)),
    ]
      .map((file) => readFileSync(file, 'utf8'))
      .join('\n');

  it('keeps the live view out of dist/mlb.mjs: Ink, React and yoga load from dist/mlb-tui.mjs only when it opens', () => {
    const main = bundleText();
    const tui = readFileSync(join(REPO_ROOT, 'dist', 'mlb-tui.mjs'), 'utf8');
    for (const marker of ['node_modules/ink/', 'node_modules/react-reconciler/', 'node_modules/yoga-layout/']) {
      expect(main, marker).not.toContain(marker);
      expect(tui, marker).toContain(marker);
    }
    expect(main).toContain('import("./mlb-tui.mjs")');
  });

  it('keeps the Kubernetes client out of dist/mlb.mjs: only the commands that talk to a cluster load dist/mlb-k8s.mjs', () => {
    const main = bundleText();
    const client = readFileSync(join(REPO_ROOT, 'dist', 'mlb-k8s.mjs'), 'utf8');
    for (const marker of ['node_modules/@kubernetes/client-node/', 'node_modules/ws/', 'node_modules/js-yaml/']) {
      expect(main, marker).not.toContain(marker);
      expect(client, marker).toContain(marker);
    }
    expect(main).toContain('import("./mlb-k8s.mjs")');
  });

  it('reads the socket from MLB_SOCKET', async () => {
    const run = await runMlbAsync(['status', '--json'], { env: { MLB_SOCKET: path } });
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout).node.name).toBe('node-a');
  });

  it('refuses --once with --json as a usage error', async () => {
    const run = await runMlbAsync(['status', '--socket', path, '--once', '--json']);
    expect(run.status).toBe(2);
  });

  it('says how to find the daemon when no socket exists (exit 1)', async () => {
    const run = await runMlbAsync(['status', '--socket', join(sockets.dir, 'absent.sock')]);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('is mlb daemon running? it listens on /run/mlb/mlb.sock by default; pass --socket');
  });
});

/** nobody can run the bundle here (the checkout is world-readable), so the socket's mode is what stops it. */
const NOBODY = 65534;
const nobodyCanRun =
  process.getuid?.() === 0 &&
  spawnSync(process.execPath, [MLB_BUNDLE, 'version'], { cwd: REPO_ROOT, uid: NOBODY, gid: NOBODY }).status === 0;

describe("mlb status as a user outside the socket's group", () => {
  it('says to run as root for a socket of group root, never to join group root (exit 1)', async (ctx) => {
    if (!nobodyCanRun) ctx.skip('needs root, and a checkout the nobody user can read, to run mlb as another user');
    chmodSync(sockets.dir, 0o755); // the directory lets nobody in; the socket's 0660 must keep it out
    const run = await runMlbAsync(['status', '--socket', path], { uid: NOBODY, gid: NOBODY });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`permission denied on ${path} (mode 0660, group root): run as root`);
    expect(run.stderr).not.toContain('add yourself to group root');
  });

  it("names the socket's group from --control-socket-group as the one to join (exit 1)", async (ctx) => {
    if (!nobodyCanRun) ctx.skip('needs root, and a checkout the nobody user can read, to run mlb as another user');
    chmodSync(sockets.dir, 0o755);
    const grouped = join(sockets.dir, 'grouped.sock');
    const daemon = await ControlServer.listen({ path: grouped, provider: new FakeProvider([]), logger: silentLogger, group: 'daemon' });
    try {
      const run = await runMlbAsync(['status', '--socket', grouped, '--once'], { uid: NOBODY, gid: NOBODY });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`permission denied on ${grouped} (mode 0660, group daemon): add yourself to group daemon`);
    } finally {
      await daemon.close();
    }
  });
});
