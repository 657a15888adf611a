/**
 * The self-check's shared probe sockets (src/announce/l2/arping/probe-sockets.ts): probes sent together share one
 * reply window (one timer, not one per probe), each still hears only the replies to its own question, and a
 * probe sent later keeps its whole window.
 */
import { describe, expect, it } from 'vitest';
import { ProbeSockets } from '../../../../src/announce/l2/arping/probe-sockets';
import type { ProbeOnceOutcome } from '../../../../src/announce/l2/arping/probe-once';
import type { PacketSocket, PacketSocketOptions } from '../../../../src/native';
import { ManualScheduler } from '../../../support/manual-scheduler';
import { arpReplyFrame, eth0, ip, PEER_A, PEER_B } from './probe-fixtures';

const WINDOW_MS = 500;

function fakeSocket() {
  const opened: PacketSocketOptions[] = [];
  const openSocket = (o: PacketSocketOptions): PacketSocket => {
    opened.push(o);
    return { closed: false, send: () => true, close() {} } as unknown as PacketSocket;
  };
  const reply = (from: Uint8Array, target: string) =>
    opened[0]!.onFrame(Buffer.from(arpReplyFrame(from, ip(target))), { ifindex: 2, pkttype: 'host' });
  return { openSocket, reply };
}

describe('probe sockets', () => {
  it('probes sent together wait on one timer, and each hears only the answers to its own question', async () => {
    const clock = new ManualScheduler();
    const { openSocket, reply } = fakeSocket();
    const sockets = new ProbeSockets({ scheduler: clock, openSocket });
    const targets = ['10.213.0.200', '10.213.0.201', '10.213.0.202', '10.213.0.203', '10.213.0.204'];
    const results: (ProbeOnceOutcome | undefined)[] = targets.map(() => undefined);
    targets.forEach((t, i) => void sockets.probe({ target: ip(t), iface: eth0, windowMs: WINDOW_MS }).then((r) => (results[i] = r)));
    expect(clock.pending).toBe(1);
    await clock.advance(100);
    reply(PEER_A, '10.213.0.201');
    reply(PEER_B, '10.213.0.203');
    await clock.advance(WINDOW_MS - 100 - 1);
    expect(results.every((r) => r === undefined)).toBe(true);
    await clock.advance(1);
    expect(results.map((r) => r?.macs)).toEqual([[], ['02:13:00:00:00:02'], [], ['02:13:00:00:00:03'], []]);
    expect(results.every((r) => r?.sent)).toBe(true);
    sockets.close();
  });

  it('a probe sent in a later turn keeps its whole window, and a reply within it counts', async () => {
    const clock = new ManualScheduler();
    const { openSocket, reply } = fakeSocket();
    const sockets = new ProbeSockets({ scheduler: clock, openSocket });
    let first: ProbeOnceOutcome | undefined;
    let second: ProbeOnceOutcome | undefined;
    void sockets.probe({ target: ip('10.213.0.200'), iface: eth0, windowMs: WINDOW_MS }).then((r) => (first = r));
    await clock.advance(300);
    void sockets.probe({ target: ip('10.213.0.201'), iface: eth0, windowMs: WINDOW_MS }).then((r) => (second = r));
    await clock.advance(WINDOW_MS - 300);
    expect(first?.sent).toBe(true);
    expect(second).toBeUndefined();
    await clock.advance(200);
    reply(PEER_A, '10.213.0.201');
    await clock.advance(100);
    expect(second?.macs).toEqual(['02:13:00:00:00:02']);
    sockets.close();
  });
});
