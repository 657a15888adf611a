/**
 * One probe through a packet socket (src/announce/l2/arping/probe-once.ts), with a fake socket standing in for the
 * segment and a hand-moved scheduler (the reply window's timer is the runtime's): the socket is open before the probe leaves, every MAC that answers within the window
 * is returned once in the order it first answered, the socket is closed whatever happens, and the failures say why.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { PacketSocketError, type PacketSocket, type PacketSocketOptions } from '../../../../src/native';
import { NeighborProbeError, PROBE_REPLY_WINDOW_MS, probeOnce } from '../../../../src/announce/l2/arping/probe-once';
import { ManualScheduler } from '../../../support/manual-scheduler';
import { arpReplyFrame, eth0, ip, OUR_MAC, PEER_A, PEER_B, TARGET4, TARGET6 } from './probe-fixtures';

interface Segment {
  readonly openSocket: (options: PacketSocketOptions) => PacketSocket;
  readonly opened: PacketSocketOptions[];
  readonly sent: Uint8Array[];
  closed: boolean;
}

/** Each entry of `answers` is [delay ms after the probe, frame]; `refuse` makes the send queue full. */
function segment(answers: [number, Uint8Array][], options: { refuse?: boolean } = {}): Segment {
  const s: Segment = {
    opened: [],
    sent: [],
    closed: false,
    openSocket: (o) => {
      s.opened.push(o);
      return {
        ifindex: 2,
        protocol: o.protocol,
        stats: { received: 0, sent: 0, sendQueueFull: 0, handlerErrors: 0 },
        get closed() {
          return s.closed;
        },
        send(frame) {
          if (options.refuse) return false;
          s.sent.push(frame);
          for (const [delay, reply] of answers)
            clock.after(delay, () => !s.closed && o.onFrame(Buffer.from(reply), { ifindex: 2, pkttype: 'host' }));
          return true;
        },
        addMembership() {},
        dropMembership() {},
        ref() {},
        unref() {},
        close() {
          s.closed = true;
        },
      };
    },
  };
  return s;
}

let clock: ManualScheduler;
beforeEach(() => {
  clock = new ManualScheduler();
});

describe('probeOnce', () => {
  it('asks once on the interface and returns every MAC that answered within the window, once each, in order', async () => {
    const seg = segment([
      [1, arpReplyFrame(PEER_B, TARGET4)],
      [2, arpReplyFrame(OUR_MAC, TARGET4)],
      [3, arpReplyFrame(PEER_B, TARGET4)],
      [PROBE_REPLY_WINDOW_MS - 10, arpReplyFrame(PEER_A, TARGET4)],
      [PROBE_REPLY_WINDOW_MS + 10, arpReplyFrame(PEER_A, ip('10.213.0.9'))],
    ]);
    const outcome = probeOnce({ target: TARGET4, iface: eth0 }, { openSocket: seg.openSocket, scheduler: clock });
    await clock.advance(PROBE_REPLY_WINDOW_MS);
    expect(await outcome).toEqual({ sent: true, macs: ['02:13:00:00:00:03', '02:13:00:00:00:01', '02:13:00:00:00:02'], socketErrors: [] });
    expect(seg.opened).toMatchObject([{ ifname: 'eth0', protocol: 'arp' }]);
    expect(seg.opened[0]?.filter?.length).toBeGreaterThan(0);
    expect(seg.sent).toHaveLength(1);
    expect(seg.closed).toBe(true);
  });

  it('a reply after the window is not counted; IPv6 asks on an ipv6 socket', async () => {
    const seg = segment([[PROBE_REPLY_WINDOW_MS + 50, arpReplyFrame(PEER_A, TARGET4)]]);
    const outcome = probeOnce({ target: TARGET4, iface: eth0 }, { openSocket: seg.openSocket, scheduler: clock });
    await clock.advance(PROBE_REPLY_WINDOW_MS + 100);
    expect((await outcome).macs).toEqual([]);
    const v6 = segment([]);
    const silent = probeOnce({ target: TARGET6, iface: eth0, windowMs: 100 }, { openSocket: v6.openSocket, scheduler: clock });
    await clock.advance(100);
    expect(await silent).toEqual({ sent: true, macs: [], socketErrors: [] });
    expect(v6.opened[0]?.protocol).toBe('ipv6');
  });

  it('a refused send returns at once with sent false (silence would mean nothing)', async () => {
    const seg = segment([], { refuse: true });
    expect(await probeOnce({ target: TARGET4, iface: eth0 }, { openSocket: seg.openSocket, scheduler: clock })).toEqual({
      sent: false,
      macs: [],
      socketErrors: [],
    });
    expect(seg.closed).toBe(true);
  });

  it('an abort ends the wait early with what was heard so far', async () => {
    const seg = segment([[5, arpReplyFrame(PEER_A, TARGET4)]]);
    const abort = new AbortController();
    const outcome = probeOnce({ target: TARGET4, iface: eth0, signal: abort.signal }, { openSocket: seg.openSocket, scheduler: clock });
    await clock.advance(10);
    abort.abort();
    expect((await outcome).macs).toEqual(['02:13:00:00:00:02']);
    expect(seg.closed).toBe(true);
  });

  it('failures say why: no IPv6 address to ask from; the socket cannot be opened', async () => {
    const v4only = { name: 'eth9', mac: OUR_MAC, addresses: [{ ip: ip('10.0.0.1'), prefix: 8 }] };
    await expect(probeOnce({ target: TARGET6, iface: v4only }, { openSocket: segment([]).openSocket })).rejects.toMatchObject({
      constructor: NeighborProbeError,
      code: 'noSourceAddress',
    });
    const denied = new PacketSocketError('permissionDenied', 'needs CAP_NET_RAW');
    await expect(
      probeOnce(
        { target: TARGET4, iface: eth0 },
        {
          openSocket: () => {
            throw denied;
          },
        },
      ),
    ).rejects.toBe(denied);
  });
});
