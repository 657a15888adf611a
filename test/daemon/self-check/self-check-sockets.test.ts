/**
 * The self-check's probes on one long-lived packet socket (src/announce/l2/arping/probe-sockets.ts) and within
 * the daemon-wide pace (SELF_CHECK_MAX_PROBES_PER_SECOND): a node owning hundreds of IPs probes every one of
 * them through a single socket on its interface, never more probes than the budget allows, and a reply on that
 * shared socket is credited to the probe it answers only (one conflict, on the right IP). A fake segment stands
 * in for the socket and answers like a kernel; the clock is moved by hand.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { formatIP, type IP } from '../../../src/ip';
import { decodeArp } from '../../../src/announce/l2/arp-packet';
import type { HostInterface } from '../../../src/announce/l2/arping/host-interfaces';
import type { PacketSocket, PacketSocketOptions } from '../../../src/native';
import { SelfChecker } from '../../../src/daemon/self-check/self-checker';
import {
  SELF_CHECK_BURST,
  SELF_CHECK_MAX_IN_FLIGHT,
  SELF_CHECK_MAX_PROBES_PER_SECOND,
} from '../../../src/daemon/self-check/self-check-schedule';
import { ManualScheduler } from '../../support/manual-scheduler';
import { arpReplyFrame, eth0, ip, PEER_A } from '../../announce/l2/arping/probe-fixtures';
import { SILENT_LOG } from '../../../src/runtime/log';

const OWNED: IP[] = Array.from({ length: 300 }, (_, i) => ip(`10.213.${1 + Math.floor(i / 200)}.${(i % 200) + 1}`));
/** Another machine also answers for this one: the only conflict. */
const CONTESTED = OWNED[123]!;
const HOST: HostInterface[] = [{ name: 'eth0', mac: eth0.mac, up: true, addresses: eth0.addresses }];

let clock: ManualScheduler;
beforeEach(() => {
  clock = new ManualScheduler();
});

/** A segment behind a fake socket: counts sockets and frames, and PEER_A answers for CONTESTED 1 ms later. */
function segment() {
  const s = { opened: 0, closed: 0, sent: 0 };
  const openSocket = (o: PacketSocketOptions): PacketSocket => {
    s.opened++;
    let closed = false;
    return {
      ifindex: 2,
      protocol: o.protocol,
      stats: { received: 0, sent: 0, sendQueueFull: 0, handlerErrors: 0 },
      get closed() {
        return closed;
      },
      send(frame) {
        s.sent++;
        const request = decodeArp(frame.subarray(14));
        if (request.ok && request.value.targetIP.value === CONTESTED.value) {
          clock.after(1, () => !closed && o.onFrame(Buffer.from(arpReplyFrame(PEER_A, CONTESTED)), { ifindex: 2, pkttype: 'host' }));
        }
        return true;
      },
      addMembership() {},
      dropMembership() {},
      ref() {},
      unref() {},
      close() {
        closed = true;
        s.closed++;
      },
    } as PacketSocket;
  };
  return { s, openSocket };
}

describe('self-check probes on a long-lived socket', () => {
  it('probes 300 owned IPs through one socket, within the daemon-wide pace, crediting a reply to the probe it answers', async () => {
    const { s, openSocket } = segment();
    const checker = new SelfChecker({ logger: SILENT_LOG, runtime: clock, interfaces: () => HOST, openSocket, random: () => 0.5 });
    checker.setOwned(OWNED.map((o) => ({ ip: o, interface: 'eth0' })));
    const seconds = 20;
    for (let t = 0; t < seconds * 10; t++) await clock.advance(100);

    expect(s.opened).toBe(1);
    expect(checker.socketsOpened).toBe(1);
    // Every owned IP was asked about at least once, and never faster than the budget for the whole node.
    expect(s.sent).toBeGreaterThanOrEqual(OWNED.length);
    expect(s.sent).toBeLessThanOrEqual(SELF_CHECK_MAX_PROBES_PER_SECOND * seconds + SELF_CHECK_BURST);
    // Counted once answered: all but those still in their reply window.
    expect(checker.stats().probesSent).toBeLessThanOrEqual(s.sent);
    expect(checker.stats().probesSent).toBeGreaterThanOrEqual(s.sent - SELF_CHECK_MAX_IN_FLIGHT);
    // PEER_A's reply is a conflict on CONTESTED only, though 32 probes share the socket it came in on.
    expect(checker.conflicts().map((c) => [c.ip, c.mac])).toEqual([[formatIP(CONTESTED), '02:13:00:00:00:02']]);

    checker.close();
    expect(s.closed).toBe(1);
  });
});
