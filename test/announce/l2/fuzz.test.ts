/**
 * Fuzz: >= 100,000 random and mutated ARP/NDP frames through decode + responder. The receive path must never
 * throw, must give exactly one outcome (a reply or a drop), every drop must name a reason from the table, and
 * every reply must itself decode as a valid answer for an owned address. Deterministic (seeded PRNG) so a
 * failure reproduces; the failing frame's hex is in the assertion message, to become a named regression case.
 */
import { describe, expect, it } from 'vitest';
import {
  arpGratuitousPair,
  arpRequest,
  BROADCAST_MAC,
  decodeArp,
  decodeEthernet,
  decodeNdp,
  encodeArpFrame,
  encodeNdpFrame,
  isL2DropReason,
  L2_DROP_REASONS,
  NDP_HOP_LIMIT,
  ownedIPSet,
  respondToFrame,
  solicitedNodeAddress,
  solicitedNodeMAC,
  type L2DropReason,
  type L2Interface,
  type NdpOption,
} from '../../../src/announce/l2';
import { type IP } from '../../../src/ip';
import {
  ip,
  KERNEL_ARP_REPLY,
  KERNEL_ARP_REQUEST,
  KERNEL_NA,
  KERNEL_NS,
  mac,
  MLB_SOLICITED_NA,
  MLB_UNSOLICITED_NA,
  METALLB_GRATUITOUS_REQUEST,
  ARPING_REQUEST_BROADCAST,
  ARPING_REQUEST_UNICAST,
  toHex,
} from './l2-fixtures';

const FRAMES = 120_000;

/** xorshift32: small, fast, seeded. */
function prng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x1_0000_0000;
  };
}

const IFACE_V4: L2Interface = { name: 'enp1s0', mac: mac('52:54:00:3a:10:21'), addresses: [ip('192.168.10.21')] };
const IFACE_V6: L2Interface = { name: 'vb', mac: mac('02:00:00:00:0b:02'), addresses: [ip('fd00:213:9::2'), ip('fe80::ff:fe00:b02')] };
const OWNED_IPS = [ip('192.168.10.200'), ip('10.213.9.2'), ip('fd00:213:9::2'), ip('fd00:213:9::1:2')];
const OWNED = ownedIPSet(OWNED_IPS);

/** Recomputes the ICMPv6 checksum (naively, independent of src) so mutations reach past badChecksum. */
function fixIcmpv6Checksum(frame: Uint8Array): void {
  let off = 12;
  if (frame[off] === 0x81 && frame[off + 1] === 0x00) off += 4;
  if (frame[off] !== 0x86 || frame[off + 1] !== 0xdd) return;
  const ip6 = off + 2;
  if (frame.length < ip6 + 44 || frame[ip6 + 6] !== 58) return;
  const len = Math.min((frame[ip6 + 4]! << 8) | frame[ip6 + 5]!, frame.length - ip6 - 40);
  if (len < 4) return;
  frame[ip6 + 42] = 0;
  frame[ip6 + 43] = 0;
  let s = 0;
  for (let i = ip6 + 8; i < ip6 + 40; i += 2) s += (frame[i]! << 8) | frame[i + 1]!;
  s += len + 58;
  for (let i = 0; i < len; i += 2) s += (frame[ip6 + 40 + i]! << 8) | (i + 1 < len ? frame[ip6 + 41 + i]! : 0);
  while (s > 0xffff) s = (s & 0xffff) + Math.floor(s / 0x10000);
  const c = ~s & 0xffff;
  frame[ip6 + 42] = c >> 8;
  frame[ip6 + 43] = c & 0xff;
}

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)] as T;
}

function randomBytes(r: () => number, n: number): Uint8Array {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = Math.floor(r() * 256);
  return b;
}

/** Well-formed frames with random fields: the mutator's raw material besides the captures. */
function structured(r: () => number): Uint8Array {
  const target: IP =
    r() < 0.6
      ? pick(r, OWNED_IPS)
      : r() < 0.5
        ? { family: 4, value: BigInt(Math.floor(r() * 2 ** 32)) }
        : { family: 6, value: BigInt(Math.floor(r() * 2 ** 32)) | (0xfd00n << 112n) };
  const sender = r() < 0.2 ? IFACE_V4.mac : r() < 0.1 ? BROADCAST_MAC : randomBytes(r, 6);
  if (target.family === 4) {
    const senderIP: IP = r() < 0.2 ? target : r() < 0.2 ? ip('0.0.0.0') : ip('192.168.10.17');
    const dst = pick(r, [BROADCAST_MAC, IFACE_V4.mac, randomBytes(r, 6)]);
    if (r() < 0.3) {
      const [req, rep] = arpGratuitousPair(sender, target);
      return encodeArpFrame(r() < 0.5 ? req : rep, BROADCAST_MAC, sender);
    }
    return encodeArpFrame(arpRequest(sender, senderIP, target), dst, sender, r() < 0.1 ? Math.floor(r() * 0xffff) : undefined);
  }
  const options: NdpOption[] = [];
  const nopt = Math.floor(r() * 4);
  for (let i = 0; i < nopt; i++) {
    const k = r();
    options.push(
      k < 0.5
        ? { kind: 'sourceLinkLayer', mac: sender }
        : k < 0.7
          ? { kind: 'targetLinkLayer', mac: sender }
          : { kind: 'unknown', type: 3 + Math.floor(r() * 250), data: randomBytes(r, 6 + 8 * Math.floor(r() * 2)) },
    );
  }
  const solicitation = r() < 0.75;
  const source = r() < 0.1 ? ip('::') : ip('fd00:213:9::1');
  const destination = r() < 0.7 ? solicitedNodeAddress(target) : r() < 0.5 ? target : ip('ff02::1');
  const message = solicitation
    ? { kind: 'solicitation' as const, target, options }
    : { kind: 'advertisement' as const, router: r() < 0.5, solicited: r() < 0.5, override: r() < 0.5, target, options };
  const ethDst = r() < 0.7 ? solicitedNodeMAC(target) : pick(r, [IFACE_V6.mac, randomBytes(r, 6)]);
  return encodeNdpFrame({ source, destination, hopLimit: r() < 0.9 ? NDP_HOP_LIMIT : Math.floor(r() * 256), message }, ethDst, sender);
}

const CAPTURES = [
  ARPING_REQUEST_BROADCAST,
  ARPING_REQUEST_UNICAST,
  METALLB_GRATUITOUS_REQUEST,
  KERNEL_ARP_REQUEST,
  KERNEL_ARP_REPLY,
  KERNEL_NS,
  KERNEL_NA,
  MLB_SOLICITED_NA,
  MLB_UNSOLICITED_NA,
];

function mutate(r: () => number, base: Uint8Array): Uint8Array {
  let b = base.slice();
  const rounds = 1 + Math.floor(r() * 4);
  for (let k = 0; k < rounds; k++) {
    const m = r();
    if (m < 0.35 && b.length > 0) {
      const at = Math.floor(r() * b.length);
      b[at] = (b[at] as number) ^ (1 << Math.floor(r() * 8));
    } else if (m < 0.55 && b.length > 0) b[Math.floor(r() * b.length)] = pick(r, [0, 1, 2, 4, 6, 0x3a, 0x7f, 0x80, 0x87, 0x88, 0xfe, 0xff]);
    else if (m < 0.7) b = b.slice(0, Math.floor(r() * (b.length + 1)));
    else if (m < 0.8) b = Uint8Array.of(...b, ...randomBytes(r, Math.floor(r() * 24)));
    else if (m < 0.9 && b.length > 60) {
      // Target the fields the decoders judge: option type/length octets, payload length, hop limit.
      const at = pick(r, [18, 19, 20, 21, 61, 62, 78, 79, 86, 87, b.length - 8, b.length - 7]);
      if (at < b.length) b[at] = Math.floor(r() * 256);
    } else if (b.length > 14) {
      // Insert an 802.1Q tag.
      b = Uint8Array.of(...b.subarray(0, 12), 0x81, 0x00, Math.floor(r() * 256), Math.floor(r() * 256), ...b.subarray(12));
    }
  }
  if (r() < 0.8) fixIcmpv6Checksum(b);
  return b;
}

describe('fuzz: random and mutated ARP/NDP frames through decode + responder', () => {
  it(`${FRAMES} frames: never throws, one outcome each, drop reasons from the table, replies valid`, () => {
    const r = prng(0x4d4c42);
    const seen = new Map<L2DropReason, number>();
    let replies = 0;
    let conflicts = 0;
    for (let n = 0; n < FRAMES; n++) {
      const k = r();
      const frame =
        k < 0.1
          ? randomBytes(r, Math.floor(r() * 120))
          : k < 0.35
            ? structured(r)
            : k < 0.65
              ? mutate(r, structured(r))
              : mutate(r, pick(r, CAPTURES));
      const iface = r() < 0.5 ? IFACE_V4 : IFACE_V6;
      let out;
      try {
        out = respondToFrame(frame, iface, OWNED);
      } catch (e) {
        throw new Error(`threw on ${toHex(frame)}: ${String(e)}`);
      }
      const hexOf = () => toHex(frame);
      if (out.reply !== undefined) {
        replies++;
        expect(out.drop, hexOf()).toBeUndefined();
        expect(OWNED.has(out.target), hexOf()).toBe(true);
        const f = decodeEthernet(out.reply);
        if (!f.ok) throw new Error(`reply did not decode for ${hexOf()}`);
        if (f.value.etherType === 0x0806) {
          const a = decodeArp(f.value.payload);
          expect(a.ok && a.value.operation, hexOf()).toBe(2);
          expect(out.reply.length, hexOf()).toBeGreaterThanOrEqual(60);
        } else {
          const na = decodeNdp(f.value.payload);
          expect(
            na.ok && na.value.message.kind === 'advertisement' && na.value.message.solicited && !na.value.message.override,
            hexOf(),
          ).toBe(true);
        }
      } else {
        expect(isL2DropReason(out.drop), `${out.drop} for ${hexOf()}`).toBe(true);
        seen.set(out.drop, (seen.get(out.drop) ?? 0) + 1);
      }
      if (out.conflict) {
        conflicts++;
        expect(OWNED.has(out.conflict.ip), hexOf()).toBe(true);
      }
    }
    // The corpus reaches every reason reachable through respondToFrame (notArp only via respondArp directly).
    if (process.env.MLB_FUZZ_STATS) console.log({ replies, conflicts, drops: Object.fromEntries(seen) });
    const unreached = L2_DROP_REASONS.filter((reason) => reason !== 'notArp' && !seen.has(reason));
    expect(unreached).toEqual([]);
    expect(replies).toBeGreaterThan(1000);
    expect(conflicts).toBeGreaterThan(100);
  });
});
