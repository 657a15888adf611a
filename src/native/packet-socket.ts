/**
 * AF_PACKET sockets (man 7 packet) for the L2 announcer and `mlb arping`: one socket per interface and ethertype,
 * whole Ethernet frames in and out, an optional classic BPF filter, link-layer multicast memberships.
 *
 * Receiving is event-driven on Node's own loop (the addon's uv_poll handle; no thread per socket): onFrame is
 * called once per frame. Sending never blocks: send() returns false when the kernel's queue is full, and the
 * frame is not sent (a responder drops it and counts; a sender that must not lose it retries on a later turn).
 * Frames this socket itself sends are not received (PACKET_OUTGOING) unless receiveOutgoing is set.
 *
 * The ARP fast path (setArpFastPath) answers ARP requests for a table of owned IPv4 addresses inside the addon,
 * with the same reply bytes as the TS responder (arp-responder.ts), and never hands those frames to onFrame: no
 * JS call and no frame copy per request. The answers come from a thread of the addon's own (arp-answer-thread.h),
 * not from the event loop, so they do not wait for whatever else the process is doing. It takes only frames respondArp answers without judgement from JS (in
 * short, a plain untagged request for an owned address from another station); the exact rule is arp-fast-path.cc's
 * alone, held to respondArp frame by frame by test/native/arp-fast-path-parity.test.ts, so it is not restated
 * here. Every other frame reaches onFrame as before. Its counters are read with fastPathStats() (they do not count
 * in `stats`).
 *
 * The addon is loaded on the first open, so importing this module never fails (see native-addon.ts).
 */
import type { BpfInstruction } from './bpf-filter';
import { nativeAddon, type ArpAnswerTimes, type ArpFastPathStat, type NativePacketSocket } from './native-addon';
import { PacketSocketError } from './packet-socket-error';

/** The ethertypes a socket is bound to (linux/if_ether.h); append-only. */
export const PACKET_PROTOCOLS = {
  arp: 0x0806,
  ipv6: 0x86dd,
  /** ETH_P_ALL: every frame on the interface, and (with receiveOutgoing) the ones sent from this host. */
  all: 0x0003,
} as const;
export type PacketProtocol = keyof typeof PACKET_PROTOCOLS;

/** sll_pkttype values (linux/if_packet.h), index = the kernel's number; append-only. */
export const PACKET_TYPES = ['host', 'broadcast', 'multicast', 'otherHost', 'outgoing', 'loopback', 'user', 'kernel'] as const;
export type PacketType = (typeof PACKET_TYPES)[number] | 'unknown';

export interface FrameInfo {
  /** The interface the frame came in on (or went out of, for 'outgoing'). */
  readonly ifindex: number;
  /** host: to our MAC; broadcast; multicast; otherHost: to another MAC (promiscuous or a virtual link). */
  readonly pkttype: PacketType;
}

/**
 * Default receive buffer: 4 MiB holds a few thousand small frames (each costs ~1 KiB of kernel memory), so a
 * burst of ARP requests outlasts a busy turn of the event loop. Above net.core.rmem_max it needs CAP_NET_ADMIN.
 */
const DEFAULT_RECEIVE_BUFFER_BYTES = 4 * 1024 * 1024;

export type PacketSocketOptions = ({ ifindex: number; ifname?: undefined } | { ifname: string; ifindex?: undefined }) & {
  protocol: PacketProtocol;
  /** Applied in the kernel before any frame is queued (bpf-filter.ts builds common ones). */
  filter?: readonly BpfInstruction[];
  /** Also deliver frames this host sends (pkttype 'outgoing'); only ETH_P_ALL sockets see those. */
  receiveOutgoing?: boolean;
  /** SO_RCVBUF(FORCE); 0 keeps the kernel's default. */
  receiveBufferBytes?: number;
  /** Called once per frame; a throw is caught, counted and reported to onError as 'handlerFailed'. */
  onFrame: (frame: Buffer, info: FrameInfo) => void;
  /** Asynchronous trouble: 'interfaceDown' when the link goes down (the socket keeps working once it is up). */
  onError: (error: PacketSocketError) => void;
};

export interface PacketSocketStats {
  received: number;
  sent: number;
  /** send() calls refused because the kernel's queue was full. */
  sendQueueFull: number;
  handlerErrors: number;
}

export interface PacketSocket {
  readonly ifindex: number;
  readonly protocol: PacketProtocol;
  readonly stats: Readonly<PacketSocketStats>;
  readonly closed: boolean;
  /** Sends one whole Ethernet frame (destination MAC first); false if the kernel's queue was full. */
  send(frame: Uint8Array): boolean;
  /** Joins a link-layer multicast group (e.g. the solicited-node MAC 33:33:ff:xx:xx:xx) on this interface. */
  addMembership(mac: string | Uint8Array): void;
  dropMembership(mac: string | Uint8Array): void;
  /** Whether this open socket keeps the process running (it does by default, like a listening server). */
  ref(): void;
  unref(): void;
  /** Idempotent; also leaves every multicast group this socket joined. */
  close(): void;
  /**
   * Replaces the ARP fast path's table: answer requests for `ips` (IPv4, host-order uint32) with `mac`; null
   * turns it off. Counters are kept across calls. Optional so that test doubles need not implement it.
   */
  setArpFastPath?(config: { mac: Uint8Array; ips: readonly number[] } | null): void;
  /** Edits the fast path's table (which must be on): O(changes), not O(table). */
  changeArpFastPath?(add: readonly number[], remove: readonly number[]): void;
  /** The fast path's counters per IP, cumulative since open (also after close: the last values). */
  fastPathStats?(): ArpFastPathStat[];
  /** How long the answer thread took over each request it answered, cumulative since open (src/announce/l2/arp-answer-times.ts). */
  fastPathTimes?(): ArpAnswerTimes;
}

export type { AnswerStageTimes, ArpAnswerTimes, ArpFastPathStat } from './native-addon';

const MAC_TEXT = /^([0-9a-f]{2})[:-]([0-9a-f]{2})[:-]([0-9a-f]{2})[:-]([0-9a-f]{2})[:-]([0-9a-f]{2})[:-]([0-9a-f]{2})$/i;

/** "33:33:ff:00:00:01" (or with dashes) or 6 bytes -> a 6-byte Buffer. */
export function macBytes(mac: string | Uint8Array): Buffer {
  if (typeof mac !== 'string') {
    if (mac.length !== 6) throw new PacketSocketError('invalidArgument', `a MAC address has 6 bytes, not ${mac.length}`);
    return Buffer.from(mac);
  }
  const m = MAC_TEXT.exec(mac);
  if (!m) throw new PacketSocketError('invalidArgument', `not a MAC address: "${mac}"`);
  return Buffer.from(m.slice(1, 7).map((h) => parseInt(h, 16)));
}

/** The index of a network interface in this process's network namespace. */
function interfaceIndex(ifname: string): number {
  const index = nativeAddon().ifNameToIndex(ifname);
  if (index === 0) throw new PacketSocketError('noSuchInterface', `no interface named "${ifname}" in this network namespace`);
  return index;
}

export function openPacketSocket(options: PacketSocketOptions): PacketSocket {
  const addon = nativeAddon();
  const ifindex = options.ifname !== undefined ? interfaceIndex(options.ifname) : options.ifindex;
  const where = options.ifname ?? `interface ${ifindex}`;
  if (!Number.isInteger(ifindex) || ifindex <= 0) {
    throw new PacketSocketError('invalidArgument', `ifindex must be a positive integer, not ${String(ifindex)}`);
  }
  const protocol = PACKET_PROTOCOLS[options.protocol];
  if (protocol === undefined) throw new PacketSocketError('invalidArgument', `unknown protocol "${String(options.protocol)}"`);
  const { onFrame, onError } = options;
  const stats: PacketSocketStats = { received: 0, sent: 0, sendQueueFull: 0, handlerErrors: 0 };

  const receive = (frame: Buffer, pkttype: number, frameIfindex: number): void => {
    stats.received++;
    try {
      onFrame(frame, { ifindex: frameIfindex, pkttype: PACKET_TYPES[pkttype] ?? 'unknown' });
    } catch (error) {
      stats.handlerErrors++;
      onError(
        new PacketSocketError('handlerFailed', `${where}: onFrame threw: ${(error as Error)?.message ?? String(error)}`, { cause: error }),
      );
    }
  };
  const report = (error: Error): void => onError(PacketSocketError.fromNative(error, where));

  let native: NativePacketSocket;
  try {
    native = new addon.PacketSocket(
      ifindex,
      protocol,
      options.filter,
      options.receiveOutgoing ?? false,
      options.receiveBufferBytes ?? DEFAULT_RECEIVE_BUFFER_BYTES,
      receive,
      report,
    );
  } catch (error) {
    throw PacketSocketError.fromNative(error, where);
  }

  let closed = false;
  const call = <T>(fn: () => T): T => {
    try {
      return fn();
    } catch (error) {
      throw PacketSocketError.fromNative(error, where);
    }
  };
  return {
    ifindex,
    protocol: options.protocol,
    stats,
    get closed() {
      return closed;
    },
    send(frame) {
      const buffer = Buffer.isBuffer(frame) ? frame : Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength);
      const sent = call(() => native.send(buffer));
      if (sent) stats.sent++;
      else stats.sendQueueFull++;
      return sent;
    },
    addMembership: (mac) => call(() => native.addMembership(macBytes(mac))),
    dropMembership: (mac) => call(() => native.dropMembership(macBytes(mac))),
    ref: () => native.ref(),
    unref: () => native.unref(),
    close() {
      closed = true;
      native.close();
    },
    setArpFastPath(config) {
      call(() => native.setArpFastPath(config === null ? null : { mac: macBytes(config.mac), ips: [...config.ips] }));
    },
    changeArpFastPath(add, remove) {
      call(() => native.changeArpFastPath([...add], [...remove]));
    },
    fastPathStats: () => native.fastPathStats(),
    fastPathTimes: () => native.fastPathTimes(),
  };
}
