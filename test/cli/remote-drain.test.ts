/**
 * `mlb drain NODE` / `mlb undrain NODE` against a daemon's control socket (a fake provider behind the real server):
 * the command waits for NODE's answer in the daemon's snapshot and says who asked, or exits 1 saying why not
 * (the daemon refused, NODE could not record it, no answer in time). `mlb status --once` names who drained a member.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DrainResult } from '../../src/daemon/control/control-server';
import type { ControlSnapshot } from '../../src/daemon/control/control-snapshot';
import { RemoteDrainError } from '../../src/daemon/remote-drain';
import { renderStatus } from '../../src/cli/commands/status';
import { exampleExplanations, exampleSnapshot, FakeProvider, runMlbAsync, silentLogger, socketDir } from '../daemon/control/fake-daemon';
import { ControlServer } from '../../src/daemon/control/control-server';

type Drain = NonNullable<ControlSnapshot['members'][number]['drain']>;

/** A daemon asked to drain node-b: what node-b answers, and after how many snapshot reads. */
class RemoteProvider extends FakeProvider {
  answer: { outcome: Drain['outcome']; detail?: string; afterReads: number } | 'never' = { outcome: 'applied', afterReads: 2 };
  refuse: RemoteDrainError | undefined;
  asked: { action: string; node: string | undefined }[] = [];
  private request: NonNullable<DrainResult['request']> | undefined;
  private reads = 0;

  override async drain(node?: string): Promise<DrainResult> {
    return node === undefined ? super.drain() : this.ask('drain', node);
  }
  override async undrain(node?: string): Promise<DrainResult> {
    return node === undefined ? super.undrain() : this.ask('undrain', node);
  }
  private async ask(action: 'drain' | 'undrain', node: string): Promise<DrainResult> {
    this.asked.push({ action, node });
    if (this.refuse) throw this.refuse;
    this.reads = 0;
    this.request = { target: node, action, requestedBy: 'node-a', seq: 1_000 + this.asked.length };
    return { changed: true, message: `asked ${node} to ${action}`, request: this.request };
  }
  override snapshot(): ControlSnapshot {
    const s = exampleSnapshot();
    const r = this.request;
    if (!r) return s;
    const answered = this.answer !== 'never' && ++this.reads > this.answer.afterReads;
    const outcome = answered && this.answer !== 'never' ? this.answer.outcome : 'pending';
    const detail = answered && this.answer !== 'never' ? this.answer.detail : undefined;
    const drain: Drain = {
      action: r.action,
      requestedBy: r.requestedBy,
      at: s.generatedAt,
      seq: r.seq,
      outcome,
      ...(detail ? { detail } : {}),
    };
    const draining = outcome === 'applied' && r.action === 'drain';
    return { ...s, members: s.members.map((m) => (m.name === r.target ? { ...m, draining, drain } : m)) };
  }
}

const sockets = socketDir();
const path = join(sockets.dir, 'mlb.sock');
let server: ControlServer;
let provider: RemoteProvider;
beforeAll(async () => {
  provider = new RemoteProvider(await exampleExplanations());
  server = await ControlServer.listen({ path, provider, logger: silentLogger });
});
afterAll(async () => {
  await server.close();
  sockets.remove();
});

describe('mlb drain NODE', () => {
  it("waits for the node's answer and says who asked", async () => {
    provider.answer = { outcome: 'applied', afterReads: 2 };
    const run = await runMlbAsync(['drain', 'node-b', '--socket', path]);
    expect(run).toEqual({ status: 0, stdout: 'node-b drained (asked by node-a)\n', stderr: '' });
    expect(provider.asked.at(-1)).toEqual({ action: 'drain', node: 'node-b' });
    const json = await runMlbAsync(['undrain', 'node-b', '--socket', path, '--json']);
    expect(json.status).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      message: 'node-b undrained (asked by node-a)',
      request: { target: 'node-b', action: 'undrain' },
      drain: { outcome: 'applied' },
    });
  });

  it('the node could not record it: exit 1 with its reason', async () => {
    provider.answer = {
      outcome: 'failed',
      detail: 'cannot record the drain in /var/lib/mlb/drain.json (EROFS: read-only file system): nothing changed',
      afterReads: 0,
    };
    const run = await runMlbAsync(['drain', 'node-b', '--socket', path]);
    expect(run).toEqual({
      status: 1,
      stdout: '',
      stderr:
        'mlb: node-b could not drain: cannot record the drain in /var/lib/mlb/drain.json (EROFS: read-only file system): nothing changed\n',
    });
  });

  it('no answer in time: exit 1, saying where the node stands and that the request stays', async () => {
    provider.answer = 'never';
    const run = await runMlbAsync(['drain', 'node-d', '--socket', path, '--wait', '1']);
    expect(run.status).toBe(1);
    expect(run.stderr).toBe(
      "mlb: node-d has not confirmed the drain within 1 s (it is dead in node-a's view); the request stays in gossip and node-d applies it when it hears it, unless a later one comes first\n",
    );
  });

  it('refused by the daemon (no gossip key): exit 1 with its message; a bad --wait is a usage error', async () => {
    provider.refuse = new RemoteDrainError(
      'remoteDrainNeedsKey',
      'remote drain needs the gossip key (--gossip-key-file): drain on node-b itself (mlb drain there)',
    );
    try {
      const run = await runMlbAsync(['drain', 'node-b', '--socket', path]);
      expect(run).toEqual({
        status: 1,
        stdout: '',
        stderr:
          'mlb: the daemon refused: remote drain needs the gossip key (--gossip-key-file): drain on node-b itself (mlb drain there)\n',
      });
    } finally {
      provider.refuse = undefined;
    }
    expect((await runMlbAsync(['drain', 'node-b', '--socket', path, '--wait', '0'])).status).toBe(2);
  });

  it('without NODE it drains this host as before', async () => {
    const run = await runMlbAsync(['drain', '--socket', path]);
    expect(run).toMatchObject({ status: 0, stdout: 'node-a is draining: its IPs move to the next node in hash order\n' });
  });
});

describe('mlb status names who drained each member', () => {
  const withDrain = (drain: Drain, draining: boolean): ControlSnapshot => {
    const s = exampleSnapshot();
    return { ...s, members: s.members.map((m) => (m.name === 'node-b' ? { ...m, labels: {}, draining, drain } : m)) };
  };
  const row = (s: ControlSnapshot) =>
    renderStatus(s, 120)
      .split('\n')
      .find((l) => l.startsWith('node-b '));
  const base = { requestedBy: 'node-c', at: '2024-05-01T09:59:00.000Z', seq: 7 };

  it('drained by whom, asked but not answered yet, and failed', () => {
    expect(row(withDrain({ ...base, action: 'drain', outcome: 'applied' }, true))).toMatch(/drained by node-c,warming-up$/);
    expect(row(withDrain({ ...base, action: 'drain', outcome: 'pending' }, false))).toMatch(/drain asked by node-c,warming-up$/);
    expect(row(withDrain({ ...base, action: 'undrain', outcome: 'failed', detail: 'EROFS' }, true))).toMatch(
      /undrain by node-c FAILED,warming-up$/,
    );
    // Undrained: nothing to flag.
    expect(row(withDrain({ ...base, action: 'undrain', outcome: 'applied' }, false))).toMatch(/ warming-up$/);
  });
});
