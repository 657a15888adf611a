/**
 * A real `mlb daemon` without a gossip key (on loopback, announcing nothing): `mlb drain OTHER` is refused with
 * the reason and what to do instead, while `mlb drain` on the node itself works as before and its status says
 * who drained it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { connectControl } from '../../../src/cli/control-client';
import { runMlbAsync } from '../control/fake-daemon';
import { configText } from '../config-facts/config-yaml';
import { startDaemon, type RunningDaemon } from '../run-daemon';
import { freeLoopbackPort } from '../../support/free-port';

const dir = mkdtempSync(join(tmpdir(), 'mlb-rdrain-'));
let daemon: RunningDaemon | undefined;
afterAll(() => {
  daemon?.child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('remote drain in a cluster without a gossip key', () => {
  it('is refused; draining the node itself still works and is recorded as its own', async () => {
    const config = join(dir, 'mlb.yaml');
    const socket = join(dir, 'mlb.sock');
    writeFileSync(config, configText(['web']));
    const port = await freeLoopbackPort();
    daemon = startDaemon([
      '--config',
      config,
      '--node-name',
      'node-1',
      '--gossip-bind',
      `127.0.0.1:${port}`,
      '--state-dir',
      join(dir, 'state'),
      '--control-socket',
      socket,
      '--no-announce',
    ]);
    await daemon.waitFor((line) => line.event === 'controlListening');

    const refused = await runMlbAsync(['drain', 'node-2', '--socket', socket]);
    expect(refused.status).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toBe(
      'mlb: the daemon refused: remote drain needs the gossip key (--gossip-key-file): without one, gossip is not authenticated and anyone who reaches the gossip port could drain a node; drain on node-2 itself (mlb drain there)\n',
    );

    const local = await runMlbAsync(['drain', '--socket', socket]);
    expect(local).toMatchObject({ status: 0, stdout: 'node-1 is draining: its IPs move to other nodes\n' });
    const self = (await connectControl(socket).getSnapshot()).members.find((m) => m.name === 'node-1');
    expect(self).toMatchObject({ draining: true, drain: { action: 'drain', requestedBy: 'node-1', outcome: 'applied' } });
    expect(await daemon.waitFor((line) => line.event === 'nodeDrained')).toMatchObject({ requestedBy: 'node-1' });
  }, 60_000);
});
