/** `mlb drain` and `mlb undrain` against a daemon's control socket (a fake provider behind the real server). */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlServer } from '../../src/daemon/control';
import { DrainRecordError } from '../../src/daemon/drain-record';
import { runMlbAsync, socketDir, startFakeDaemon, type FakeProvider } from '../daemon/control/fake-daemon';

const sockets = socketDir();
const path = join(sockets.dir, 'mlb.sock');
let server: ControlServer;
let provider: FakeProvider;
beforeAll(async () => {
  ({ server, provider } = await startFakeDaemon(path));
});
afterAll(async () => {
  await server.close();
  sockets.remove();
});

describe('mlb drain / undrain', () => {
  it("drains the node, prints the daemon's message, and a second drain is still a success", async () => {
    const first = await runMlbAsync(['drain', '--socket', path]);
    expect(first).toMatchObject({ status: 0, stderr: '', stdout: 'node-a is draining: its IPs move to the next node in hash order\n' });
    expect(provider.draining).toBe(true);
    const again = await runMlbAsync(['drain', '--socket', path, '--json']);
    expect(again.status).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ changed: false, message: 'node-a was already draining' });
  });

  it('undrains it again', async () => {
    provider.draining = true;
    const run = await runMlbAsync(['undrain'], { env: { MLB_SOCKET: path } });
    expect(run).toMatchObject({ status: 0, stdout: 'node-a takes part in elections again\n' });
    expect(provider.draining).toBe(false);
  });

  it("a change the daemon cannot record: exit 1, the daemon's reason, nothing on stdout, the node as it was", async () => {
    provider.draining = true;
    provider.failDrain = new DrainRecordError(
      'drainNotRecorded',
      'cannot record the undrain in /var/lib/mlb/drain.json (EROFS: read-only file system): nothing changed, this node is still drained',
    );
    try {
      const run = await runMlbAsync(['undrain', '--socket', path]);
      expect(run).toEqual({
        status: 1,
        stdout: '',
        stderr:
          'mlb: the daemon refused: cannot record the undrain in /var/lib/mlb/drain.json (EROFS: read-only file system): nothing changed, this node is still drained\n',
      });
      expect(provider.draining).toBe(true);
    } finally {
      provider.failDrain = undefined;
    }
  });

  it('says how to find the daemon when no socket exists (exit 1)', async () => {
    for (const command of ['drain', 'undrain']) {
      const run = await runMlbAsync([command, '--socket', join(sockets.dir, 'absent.sock')]);
      expect(run.status).toBe(1);
      expect(run.stderr).toContain('is mlb daemon running? it listens on /run/mlb/mlb.sock by default; pass --socket');
    }
  });
});
