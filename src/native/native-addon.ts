/**
 * Finds and loads build/Release/mlb_native.node, once, on first use, so that importing src/native never fails:
 * a CLI built without the addon runs every command that needs no raw socket, and the others fail with
 * `addonMissing`.
 *
 * Where it looks, relative to this module's own file (import.meta.url):
 * - from source (vitest, tsx): src/native/ -> ../../build/Release/
 * - from the bundle dist/mlb.mjs: dist/mlb_native.node (scripts/build.mjs copies it there), then ../build/Release/
 * MLB_NATIVE_ADDON names another file (a packager's layout); it is tried first. The looking and loading is
 * addon-loader.ts's, shared with udp-ttl.ts.
 */
import { loadAddon } from './addon-loader';
import type { AddonStatus } from './addon-status';
import { ADDON_MISSING_MESSAGE, PacketSocketError } from './packet-socket-error';

const ADDON_FILE_NAME = 'mlb_native.node';

/** What the C++ side exports (src/native/packet-socket.cc). */
export interface NativeAddon {
  PacketSocket: new (
    ifindex: number,
    protocol: number,
    filter: readonly { code: number; jt: number; jf: number; k: number }[] | undefined,
    receiveOutgoing: boolean,
    receiveBufferBytes: number,
    onFrame: (frame: Buffer, pkttype: number, ifindex: number) => void,
    onError: (error: Error) => void,
  ) => NativePacketSocket;
  ifNameToIndex(name: string): number;
  /**
   * The ARP fast path's answer to one frame with this table, without a socket (src/native/arp-fast-path.cc): the
   * reply it would send, or null when it leaves the frame to onFrame. `pkttype` is the kernel's number for how the
   * frame was received (PACKET_TYPES' index; 'host' when omitted). For the parity test against respondArp.
   */
  arpFastPathReply(frame: Buffer, table: { mac: Buffer; ips: number[] }, pkttype?: number): Buffer | null;
}

export interface NativePacketSocket {
  send(frame: Buffer): boolean;
  addMembership(mac: Buffer): void;
  dropMembership(mac: Buffer): void;
  ref(): void;
  unref(): void;
  close(): void;
  setArpFastPath(config: { mac: Buffer; ips: number[] } | null): void;
  changeArpFastPath(add: number[], remove: number[]): void;
  fastPathStats(): ArpFastPathStat[];
  fastPathTimes(): ArpAnswerTimes;
}

/** One stage of the answer thread's times: a count per bucket (the last one unbounded), and the seconds in all. */
export interface AnswerStageTimes {
  readonly counts: readonly number[];
  readonly sumSeconds: number;
}

/** How long the ARP answer thread took over the requests it answered (arp-answer-times.h), cumulative since open. */
export interface ArpAnswerTimes {
  /** Each bucket's upper bound but the last's, in seconds: the addon's, so they are written down once. */
  readonly boundsSeconds: readonly number[];
  /** From the kernel's receive stamp of the request to the thread reading it. */
  readonly queued: AnswerStageTimes;
  /** From that read to the reply handed to the kernel. */
  readonly answering: AnswerStageTimes;
}

/** The ARP fast path's counters for one IPv4 address (host-order uint32), cumulative since the socket opened. */
export interface ArpFastPathStat {
  readonly ip: number;
  /** Requests for `ip` answered in C++ (never delivered to onFrame). */
  readonly requests: number;
  /** Replies the kernel accepted. */
  readonly replies: number;
  /** Replies sendto(2) refused (queue full, link down). */
  readonly sendFailures: number;
}

export type { AddonStatus };

const SPEC = { fileName: ADDON_FILE_NAME, overrideEnv: 'MLB_NATIVE_ADDON' } as const;

/** Loads the addon if it has not been tried yet; never throws. */
export function nativeAddonStatus(): AddonStatus {
  return loadAddon<NativeAddon>(SPEC).status;
}

/** The loaded addon, or a PacketSocketError('addonMissing') saying how to get it. */
export function nativeAddon(): NativeAddon {
  const { status: s, addon } = loadAddon<NativeAddon>(SPEC);
  if (!s.loaded || !addon) {
    const why = s.loaded ? 'unknown' : s.why;
    throw new PacketSocketError('addonMissing', `${ADDON_MISSING_MESSAGE} (${why})`);
  }
  return addon;
}
