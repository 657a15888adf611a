/**
 * L2Announcer with a hand-written link table and fake packet sockets: which sockets it opens (filters, groups),
 * what it does with a frame, and how it follows an interface that goes away and comes back with a new ifindex.
 * The gratuitous schedule runs on a ManualRuntime, so its bursts are seen at the very times they are due. The real
 * sockets, timers and kernels are in l2-announcer.lab.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { formatIP, parseIP, type IP } from '../../../src/ip';
import { arpRequest, encodeArpFrame } from '../../../src/announce/l2/arp-packet';
import type { LinkInfo, LinkSource } from '../../../src/announce/l2/interfaces';
import { L2Announcer } from '../../../src/announce/l2/l2-announcer';
import { BROADCAST_MAC, parseMAC } from '../../../src/announce/l2/mac-address';
import { acceptNeighborSolicitations } from '../../../src/announce/l2/neighbor-solicitation-filter';
import { acceptEthertypes, type PacketSocket, type PacketSocketOptions } from '../../../src/native';
import { nativeAddon } from '../../../src/native/native-addon';
import { ManualRuntime } from '../../support/manual-runtime';

const VIP4 = parseIP('10.0.0.100')!;
const VIP6 = parseIP('fd00::100')!;
const MAC = parseMAC('02:00:00:00:00:02')!;
const CLIENT = parseMAC('02:00:00:00:00:01')!;
const OTHER_NODE = parseMAC('02:00:00:00:00:03')!;

class FakeLinks implements LinkSource {
  private listener: ((links: readonly LinkInfo[]) => void) | undefined;
  constructor(public table: LinkInfo[]) {}
  links() {
    return this.table;
  }
  link(name: string) {
    return this.table.find((l) => l.name === name);
  }
  onChange(listener: (links: readonly LinkInfo[]) => void) {
    this.listener = listener;
    return () => (this.listener = undefined);
  }
  set(table: LinkInfo[]) {
    this.table = table;
    this.listener?.(table);
  }
}

interface FakeSocket extends PacketSocket {
  readonly options: PacketSocketOptions;
  readonly sentFrames: Uint8Array[];
  readonly groups: Set<string>;
  throwOnSend: boolean;
}

function fakeOpener() {
  const opened: FakeSocket[] = [];
  const open = (options: PacketSocketOptions): PacketSocket => {
    const sentFrames: Uint8Array[] = [];
    const groups = new Set<string>();
    let closed = false;
    const socket: FakeSocket = {
      options,
      sentFrames,
      groups,
      throwOnSend: false,
      ifindex: options.ifindex!,
      protocol: options.protocol,
      stats: { received: 0, sent: 0, sendQueueFull: 0, handlerErrors: 0 },
      get closed() {
        return closed;
      },
      send(frame) {
        if (socket.throwOnSend) throw new Error('boom');
        sentFrames.push(frame);
        return true;
      },
      addMembership: (mac) => void groups.add(String(mac)),
      dropMembership: (mac) => void groups.delete(String(mac)),
      ref() {},
      unref() {},
      close() {
        closed = true;
      },
    };
    opened.push(socket);
    return socket;
  };
  return { opened, open };
}

const eth0 = (index: number): LinkInfo => ({ index, name: 'eth0', mac: MAC, up: true, master: undefined, noarp: false, addresses: [] });

let announcer: L2Announcer | undefined;
afterEach(() => announcer?.close());

describe('L2Announcer', () => {
  it('opens an ARP socket (ARP filter) and an NDP socket (NS filter, solicited-node group), answers, counts, closes on withdraw', () => {
    const links = new FakeLinks([eth0(2)]);
    const { opened, open } = fakeOpener();
    announcer = new L2Announcer({ links, openSocket: open });
    announcer.reconcile([
      { ip: VIP4, interfaces: ['eth0'] },
      { ip: VIP6, interfaces: ['eth0'] },
    ]);
    expect(opened.map((s) => [s.options.protocol, s.options.ifindex])).toEqual([
      ['arp', 2],
      ['ipv6', 2],
    ]);
    const [arp, ndp] = opened as [FakeSocket, FakeSocket];
    expect(arp.options.filter).toEqual(acceptEthertypes(0x0806));
    expect(ndp.options.filter).toEqual(acceptNeighborSolicitations());
    expect([...ndp.groups]).toEqual(['33:33:ff:00:01:00']);
    // One burst at once on each: ARP request announcement + reply; one unsolicited NA.
    expect(arp.sentFrames).toHaveLength(2);
    expect(ndp.sentFrames).toHaveLength(1);

    const request = encodeArpFrame(arpRequest(CLIENT, parseIP('10.0.0.1')!, VIP4), BROADCAST_MAC, CLIENT);
    arp.options.onFrame(Buffer.from(request), { ifindex: 2, pkttype: 'broadcast' });
    arp.options.onFrame(Buffer.from([1, 2, 3]), { ifindex: 2, pkttype: 'broadcast' });
    expect(arp.sentFrames).toHaveLength(3);
    const stats = announcer.stats();
    expect(stats.requestsReceived).toEqual({ '10.0.0.100': 1 });
    expect(stats.responsesSent).toEqual({ '10.0.0.100': 1 });
    expect(stats.gratuitousSent).toEqual({ '10.0.0.100': 1, 'fd00::100': 1 });
    expect(stats.drops).toEqual({ truncated: 1 });
    expect(announcer.metrics().map((m) => `${m.name}{ip=${m.labels.ip}} ${m.value}`)).toContain(
      'metallb_layer2_responses_sent{ip=10.0.0.100} 1',
    );

    announcer.reconcile([{ ip: VIP6, interfaces: ['eth0'] }]);
    expect(arp.closed).toBe(true);
    expect(ndp.closed).toBe(false);
    announcer.reconcile([]);
    expect(ndp.closed).toBe(true);
    expect(announcer.stats().interfaces).toEqual({});
  });

  it('hands another MAC claiming an owned address to the daemon without a warning of its own (a handover looks the same)', () => {
    const links = new FakeLinks([eth0(2)]);
    const { opened, open } = fakeOpener();
    const lines: { level: string; event: unknown }[] = [];
    const at = (level: string) => (fields: Record<string, unknown>) => void lines.push({ level, event: fields.event });
    const logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
    const seen: string[] = [];
    announcer = new L2Announcer({ links, openSocket: open, logger, onConflict: (c) => seen.push(`${formatIP(c.ip)} ${c.evidence}`) });
    announcer.reconcile([{ ip: VIP4, interfaces: ['eth0'] }]);
    const [arp] = opened as [FakeSocket];
    // The successor's gratuitous ARP for the VIP, as a graceful handover sends it.
    const gratuitous = encodeArpFrame(arpRequest(OTHER_NODE, VIP4, VIP4), BROADCAST_MAC, OTHER_NODE);
    arp.options.onFrame(Buffer.from(gratuitous), { ifindex: 2, pkttype: 'broadcast' });
    expect(seen).toEqual(['10.0.0.100 arpAnnouncement']);
    expect(lines.filter((l) => l.event === 'addressConflict').map((l) => l.level)).toEqual(['debug']);
    expect(lines.filter((l) => l.level === 'warn' || l.level === 'error')).toEqual([]);
  });

  it('keeps the ARP fast path table equal to the IPv4 addresses owned per interface, and folds its counters into the metrics exactly', () => {
    const links = new FakeLinks([eth0(2)]);
    const { opened, open } = fakeOpener();
    const tables: ({ mac: string; ips: number[] } | null)[] = [];
    let counts = new Map<number, { requests: number; replies: number; sendFailures: number }>();
    const withFastPath = (options: PacketSocketOptions): PacketSocket => {
      const socket = open(options);
      return Object.assign(socket, {
        setArpFastPath: (config: { mac: Uint8Array; ips: readonly number[] } | null) =>
          void tables.push(config && { mac: Buffer.from(config.mac).toString('hex'), ips: [...config.ips] }),
        fastPathStats: () => [...counts].map(([ip, c]) => ({ ip, ...c })),
      });
    };
    announcer = new L2Announcer({ links, openSocket: withFastPath });
    const VIP4B = parseIP('10.0.0.101')!;
    announcer.reconcile([
      { ip: VIP4, interfaces: ['eth0'] },
      { ip: VIP6, interfaces: ['eth0'] },
    ]);
    expect(tables).toEqual([{ mac: '020000000002', ips: [Number(VIP4.value)] }]);
    announcer.reconcile([
      { ip: VIP4, interfaces: ['eth0'] },
      { ip: VIP6, interfaces: ['eth0'] },
    ]);
    expect(tables).toHaveLength(1); // unchanged: not set again
    announcer.reconcile([
      { ip: VIP4, interfaces: ['eth0'] },
      { ip: VIP4B, interfaces: ['eth0'] },
    ]);
    expect(tables.at(-1)).toEqual({ mac: '020000000002', ips: [Number(VIP4.value), Number(VIP4B.value)] });

    counts.set(Number(VIP4.value), { requests: 5, replies: 4, sendFailures: 1 });
    expect(announcer.stats()).toMatchObject({ requestsReceived: { '10.0.0.100': 5 }, responsesSent: { '10.0.0.100': 4 }, sendFailures: 1 });
    // A request the fast path left to JS adds to the same counters.
    const request = encodeArpFrame(arpRequest(CLIENT, parseIP('10.0.0.1')!, VIP4), BROADCAST_MAC, CLIENT);
    opened[0]!.options.onFrame(Buffer.from(request), { ifindex: 2, pkttype: 'broadcast' });
    counts.set(Number(VIP4.value), { requests: 7, replies: 6, sendFailures: 1 });
    counts.set(Number(VIP4B.value), { requests: 1, replies: 1, sendFailures: 0 });
    expect(announcer.metrics().map((m) => `${m.name}{ip=${m.labels.ip}} ${m.value}`)).toEqual(
      expect.arrayContaining([
        'metallb_layer2_requests_received{ip=10.0.0.100} 8',
        'metallb_layer2_responses_sent{ip=10.0.0.100} 7',
        'metallb_layer2_requests_received{ip=10.0.0.101} 1',
      ]),
    );
    // Counted at close too: what the socket answered after the last look is not lost.
    counts.set(Number(VIP4B.value), { requests: 3, replies: 3, sendFailures: 0 });
    announcer.reconcile([{ ip: VIP6, interfaces: ['eth0'] }]);
    expect(opened[0]!.closed).toBe(true);
    counts = new Map();
    expect(announcer.stats()).toMatchObject({
      requestsReceived: { '10.0.0.100': 8, '10.0.0.101': 3 },
      responsesSent: { '10.0.0.100': 7, '10.0.0.101': 3 },
      sendFailures: 1,
    });
  });

  /**
   * Packet sockets with a fast path kept as a table here: whole tables set, edits, and what the addon's fast path
   * (the same matcher its thread runs) answers with the table as it stands.
   */
  function fastPathSockets() {
    const { opened, open } = fakeOpener();
    const state = {
      table: null as { mac: Buffer; ips: Set<number> } | null,
      wholeTables: 0,
      edits: [] as { add: number[]; remove: number[] }[],
    };
    const openSocket = (options: PacketSocketOptions): PacketSocket =>
      Object.assign(open(options), {
        setArpFastPath: (config: { mac: Uint8Array; ips: readonly number[] } | null) => {
          state.wholeTables++;
          state.table = config && { mac: Buffer.from(config.mac), ips: new Set(config.ips) };
        },
        changeArpFastPath: (add: readonly number[], remove: readonly number[]) => {
          state.edits.push({ add: [...add], remove: [...remove] });
          for (const ip of remove) state.table!.ips.delete(ip);
          for (const ip of add) state.table!.ips.add(ip);
        },
        fastPathStats: () => [],
      });
    const answers = (ip: IP): boolean => {
      const request = Buffer.from(encodeArpFrame(arpRequest(CLIENT, parseIP('10.0.200.1')!, ip), BROADCAST_MAC, CLIENT));
      const table = state.table;
      return table !== null && nativeAddon().arpFastPathReply(request, { mac: table.mac, ips: [...table.ips] }) !== null;
    };
    return { opened, openSocket, state, answers };
  }
  const vip = (n: number): IP => parseIP(`10.0.${n >> 8}.${n & 0xff}`)!;

  it('edits the ARP fast path table by the addresses gained and lost: an added VIP is answered, a removed one is not, a link event costs nothing', () => {
    const links = new FakeLinks([eth0(2)]);
    const { opened, openSocket, state, answers } = fastPathSockets();
    announcer = new L2Announcer({ links, openSocket });
    const many = Array.from({ length: 1000 }, (_, i) => ({ ip: vip(i + 1), interfaces: ['eth0'] }));

    announcer.reconcile(many);
    expect(state.wholeTables).toBe(1);
    expect(state.table!.ips.size).toBe(1000);
    const added = vip(2000);
    announcer.reconcile([...many, { ip: added, interfaces: ['eth0'] }]);
    expect(answers(added)).toBe(true);
    const removed = vip(500);
    announcer.reconcile([...many.filter((_, i) => i + 1 !== 500), { ip: added, interfaces: ['eth0'] }]);
    expect(answers(removed)).toBe(false);
    expect(answers(vip(501))).toBe(true);
    // Each change went to the addon as that change alone, not as a new copy of 1,000 addresses.
    expect(state.edits).toEqual([
      { add: [Number(added.value)], remove: [] },
      { add: [], remove: [Number(removed.value)] },
    ]);
    // A link event that changes nothing the fast path uses (an address on another link) sends nothing.
    links.set([eth0(2), { ...eth0(3), name: 'eth1', mac: CLIENT }]);
    expect([state.wholeTables, state.edits.length]).toEqual([1, 2]);
    expect(opened).toHaveLength(1);
  });

  it('answers a batch ahead of its reconcile: the fast path gains it at once, and the reconcile that follows adds nothing twice', () => {
    const links = new FakeLinks([eth0(2)]);
    const { openSocket, state, answers } = fastPathSockets();
    announcer = new L2Announcer({ links, openSocket, runtime: new ManualRuntime() });
    const first = [{ ip: vip(1), interfaces: ['eth0'] }];
    // Before anything is answered on eth0 there is no fast path to add to: the batch waits for its reconcile.
    announcer.answerAhead(first);
    expect(state.table).toBeNull();
    announcer.reconcile(first);
    const batch = [vip(2), vip(3)].map((ip) => ({ ip, interfaces: ['eth0'] }));
    announcer.answerAhead(batch);
    expect([answers(vip(2)), answers(vip(3))]).toEqual([true, true]);
    // Not in the announcer's state until the reconcile (its gratuitous schedule has started: next test).
    expect(announcer.announced().map((a) => formatIP(a.ip))).toEqual(['10.0.0.1']);
    announcer.reconcile([...first, ...batch]);
    expect(announcer.announced()).toHaveLength(3);
    // IPv6 and unknown interfaces are left to the reconcile; a second answerAhead of the same adds nothing.
    announcer.answerAhead([{ ip: parseIP('fd00::5')!, interfaces: ['eth0'] }, { ip: vip(4), interfaces: ['eth9'] }, ...batch]);
    expect(state.edits).toEqual([{ add: [Number(vip(2).value), Number(vip(3).value)], remove: [] }]);
    // A batch answered ahead and then dropped from the change is removed by the next reconcile.
    announcer.answerAhead([{ ip: vip(5), interfaces: ['eth0'] }]);
    expect(answers(vip(5))).toBe(true);
    announcer.reconcile([...first, ...batch]);
    expect(answers(vip(5))).toBe(false);
  });

  it('announces a batch answered ahead at once, sends nothing twice at its reconcile, and stops one the reconcile drops', async () => {
    const runtime = new ManualRuntime();
    const t0 = runtime.now();
    const links = new FakeLinks([eth0(2)]);
    const { opened, openSocket } = fastPathSockets();
    announcer = new L2Announcer({ links, openSocket, runtime });
    const first = [{ ip: vip(1), interfaces: ['eth0'] }];
    announcer.reconcile(first);
    const arp = opened[0]!;
    // The ARP sender address of each frame sent: an Ethernet header (14 bytes), then the ARP packet's sender IP at 14.
    const announcedIPs = () => arp.sentFrames.map((f) => [...f.subarray(28, 32)].join('.'));
    expect(announcedIPs()).toEqual(['10.0.0.1', '10.0.0.1']);
    // A batch lands mid-binding: answered, and its gratuitous ARP pair goes out at once (a client's cache moves now).
    announcer.answerAhead([vip(2), vip(3)].map((ip) => ({ ip, interfaces: ['eth0'] })));
    expect(announcedIPs().slice(2)).toEqual(['10.0.0.2', '10.0.0.2', '10.0.0.3', '10.0.0.3']);
    // The reconcile owns vip 2, not vip 3 (dropped from the change): nothing is sent again for vip 2 now...
    await runtime.advanceTo(t0 + 500);
    announcer.reconcile([...first, { ip: vip(2), interfaces: ['eth0'] }]);
    expect(arp.sentFrames).toHaveLength(6);
    // ...and over MetalLB's window vip 2 keeps its cadence (from its first burst) while vip 3 gets no burst again.
    await runtime.advanceTo(t0 + 60_000);
    const later = announcedIPs().slice(6);
    expect(later.filter((ip) => ip === '10.0.0.3')).toEqual([]);
    expect(later.filter((ip) => ip === '10.0.0.2').length).toBeGreaterThanOrEqual(8);
    expect(announcer.stats().gratuitousSent['10.0.0.3']).toBe(1);
  });

  it('keeps a batch answered ahead across a link event, until the reconcile that owns it or drops it', () => {
    const links = new FakeLinks([eth0(2)]);
    const { openSocket, state, answers } = fastPathSockets();
    announcer = new L2Announcer({ links, openSocket });
    const first = [{ ip: vip(1), interfaces: ['eth0'] }];
    announcer.reconcile(first);
    announcer.answerAhead([vip(2), vip(3)].map((ip) => ({ ip, interfaces: ['eth0'] })));
    // A link event in between (another link appears) brings nothing new owned: the batch is still answered.
    links.set([eth0(2), { ...eth0(3), name: 'eth1', mac: CLIENT }]);
    expect([answers(vip(2)), answers(vip(3))]).toEqual([true, true]);
    // The reconcile owns vip 2 and not vip 3 (dropped from the change): vip 3 goes, vip 2 is not added twice.
    announcer.reconcile([...first, { ip: vip(2), interfaces: ['eth0'] }]);
    expect([answers(vip(1)), answers(vip(2)), answers(vip(3))]).toEqual([true, true, false]);
    expect(state.edits).toEqual([
      { add: [Number(vip(2).value), Number(vip(3).value)], remove: [] },
      { add: [], remove: [Number(vip(3).value)] },
    ]);
    // A later batch, then a MAC change: the whole table is set again to what is owned, answered with the new MAC.
    announcer.answerAhead([{ ip: vip(4), interfaces: ['eth0'] }]);
    const newMac = parseMAC('02:00:00:00:00:09')!;
    links.set([{ ...eth0(2), mac: newMac }]);
    expect(state.table!.mac).toEqual(Buffer.from(newMac));
    expect([...state.table!.ips].sort()).toEqual([vip(1), vip(2)].map((ip) => Number(ip.value)));
    // and the edits go on from that table: the next reconcile adds vip 4, and only it.
    announcer.reconcile([...first, ...[2, 4].map((n) => ({ ip: vip(n), interfaces: ['eth0'] }))]);
    expect(state.edits.at(-1)).toEqual({ add: [Number(vip(4).value)], remove: [] });
    expect(answers(vip(4))).toBe(true);
  });

  it('never lets a throw out of the receive path', () => {
    const links = new FakeLinks([eth0(2)]);
    const { opened, open } = fakeOpener();
    announcer = new L2Announcer({ links, openSocket: open });
    announcer.reconcile([{ ip: VIP4, interfaces: ['eth0'] }]);
    const arp = opened[0]!;
    arp.throwOnSend = true;
    const request = encodeArpFrame(arpRequest(CLIENT, parseIP('10.0.0.1')!, VIP4), BROADCAST_MAC, CLIENT);
    expect(() => arp.options.onFrame(Buffer.from(request), { ifindex: 2, pkttype: 'broadcast' })).not.toThrow();
    expect(announcer.stats().handlerErrors).toBe(1);
  });

  it('waits for a missing interface, and reopens (rejoining groups, announcing again) when it comes back with a new ifindex', () => {
    const links = new FakeLinks([]);
    const { opened, open } = fakeOpener();
    const logs: string[] = [];
    const log = (level: string) => (fields: object) => logs.push(`${level} ${(fields as { event?: string }).event}`);
    announcer = new L2Announcer({
      links,
      openSocket: open,
      logger: { info: log('info'), warn: log('warn'), error: log('error'), debug: log('debug') },
    });
    announcer.reconcile([{ ip: VIP6, interfaces: ['eth0'] }]);
    expect(opened).toHaveLength(0);
    expect(logs).toContain('info createNDPResponder');
    expect(logs).toContain('warn announceDeferred');

    links.set([eth0(5)]);
    expect(opened.map((s) => s.options.ifindex)).toEqual([5]);
    expect([...opened[0]!.groups]).toEqual(['33:33:ff:00:01:00']);
    expect(opened[0]!.sentFrames).toHaveLength(1);

    links.set([]);
    expect(opened[0]!.closed).toBe(true);
    expect(logs).toContain('warn interfaceGone');
    links.set([eth0(9)]);
    expect(opened.map((s) => s.options.ifindex)).toEqual([5, 9]);
    expect([...opened[1]!.groups]).toEqual(['33:33:ff:00:01:00']);
    expect(opened[1]!.closed).toBe(false);
    expect(logs).toContain('info interfaceAppeared');
  });

  it('sends the gratuitous ARP pair at 0, 1100, 2200, 3300 and 4400 ms after the address is gained, then stops (MetalLB)', async () => {
    const runtime = new ManualRuntime();
    const t0 = runtime.now();
    const links = new FakeLinks([eth0(2)]);
    /** When each frame went out, in ms after t0. */
    const sentAt: number[] = [];
    const { opened, open } = fakeOpener();
    const timed = (options: PacketSocketOptions): PacketSocket => {
      const socket = open(options);
      const send = socket.send.bind(socket);
      return Object.assign(socket, {
        send: (frame: Uint8Array) => {
          sentAt.push(runtime.now() - t0);
          return send(frame);
        },
      });
    };
    announcer = new L2Announcer({ links, openSocket: timed, runtime });
    announcer.reconcile([{ ip: VIP4, interfaces: ['eth0'] }]);
    expect(sentAt).toEqual([0, 0]); // the ARP request announcement and the reply, at once
    await runtime.advanceTo(t0 + 1_099);
    expect(sentAt).toHaveLength(2); // not a millisecond early
    await runtime.advanceTo(t0 + 60_000);
    expect(sentAt).toEqual([0, 0, 1_100, 1_100, 2_200, 2_200, 3_300, 3_300, 4_400, 4_400]);
    expect(opened[0]!.sentFrames).toHaveLength(10);
    expect(announcer.stats().gratuitousSent).toEqual({ '10.0.0.100': 5 });
    expect(runtime.nextDeadline).toBeUndefined(); // nothing left armed once the window is over
  });
});
