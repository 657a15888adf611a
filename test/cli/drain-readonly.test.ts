/**
 * `mlb undrain` against a real daemon whose --state-dir turned read-only while it ran (a read-only bind mount in
 * the daemon's own mount namespace: root writes through mode bits, not through a read-only mount). The undrain
 * cannot be recorded, so it must change nothing: exit 1 saying why, the node still drained in the daemon and on
 * disk, no temporary file left. Needs root (unshare -m); skipped otherwise, saying why.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runMlbAsync } from '../daemon/control/fake-daemon';
import { startDaemon, type RunningDaemon } from '../daemon/run-daemon';

function mountNamespaces(): { ok: true } | { ok: false; why: string } {
  if (process.getuid?.() !== 0) return { ok: false, why: 'a read-only bind mount needs root' };
  const probe = spawnSync('unshare', ['-m', 'true']);
  return probe.status === 0
    ? { ok: true }
    : { ok: false, why: `unshare -m failed: ${probe.stderr?.toString().trim() || probe.error?.message}` };
}

const support = mountNamespaces();
const dir = mkdtempSync(join(tmpdir(), 'mlb-drain-ro-'));
const stateDir = join(dir, 'state');
const socket = join(dir, 'mlb.sock');
let daemon: RunningDaemon | undefined;
afterAll(() => {
  daemon?.child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** An address of this file's own on loopback (all of 127/8 is local on Linux): no other test's daemon is there. */
const gossipBind = `127.216.${process.pid % 250}.1:7946`;

describe.skipIf(!support.ok)(`mlb undrain with a read-only state directory${support.ok ? '' : ` (skipped: ${support.why})`}`, () => {
  it('exits 1 saying why, and the node stays drained in the daemon and on disk', async () => {
    // The daemon's own mount namespace: the state directory bound onto itself, so it can be made read-only later.
    daemon = startDaemon(
      [
        '--config',
        'examples/plain-host.yaml',
        '--node-name',
        'node-a',
        '--gossip-bind',
        gossipBind,
        '--state-dir',
        stateDir,
        '--control-socket',
        socket,
        '--no-announce',
      ],
      undefined,
      ['unshare', '-m', '--propagation', 'private', 'sh', '-c', 'mkdir -p "$0" && mount --bind "$0" "$0" && exec "$@"', stateDir],
    );
    await daemon.waitFor((l) => l.event === 'runRecorded');
    const drain = await runMlbAsync(['drain', '--socket', socket]);
    expect(drain).toMatchObject({ status: 0, stdout: 'node-a is draining: its IPs move to other nodes\n' });
    const drainFile = join(stateDir, 'drain.json');
    const recorded = readFileSync(drainFile, 'utf8');
    expect(JSON.parse(recorded)).toMatchObject({ drained: true });

    const remount = spawnSync('nsenter', ['-t', String(daemon.child.pid), '-m', 'mount', '-o', 'remount,bind,ro', stateDir], {
      encoding: 'utf8',
    });
    expect(remount.stderr).toBe('');
    const undrain = await runMlbAsync(['undrain', '--socket', socket]);
    expect(undrain.status).toBe(1);
    expect(undrain.stdout).toBe('');
    expect(undrain.stderr).toContain(`mlb: the daemon refused: cannot record the undrain in ${drainFile} (EROFS: read-only file system`);
    expect(undrain.stderr).toMatch(/nothing changed, this node is still drained\n$/);

    const status = await runMlbAsync(['status', '--json', '--socket', socket]);
    expect(status.status).toBe(0);
    expect(JSON.parse(status.stdout).node.draining).toBe(true);
    expect(readFileSync(drainFile, 'utf8')).toBe(recorded);
    expect(readdirSync(stateDir).filter((n) => n.includes('.tmp-'))).toEqual([]);
    expect(daemon.lines.some((l) => l.event === 'nodeUndrained')).toBe(false);
    expect(await daemon.waitFor((l) => l.event === 'drainNotRecorded')).toMatchObject({ level: 'error', file: drainFile, drained: true });
  });
});
