/**
 * The ARP fast path (src/native/arp-fast-path.cc) against respondArp (src/announce/l2/arp-responder.ts), frame by
 * frame, over every combination of the fields either side looks at, and of how the kernel received the frame.
 *
 * Why a parity test and not C++ generated from the TypeScript rules: the rules are not a table but an ordered
 * decision with side outputs (the conflict evidence, the drop reasons JS counts, the 802.1Q echo) plus a reply
 * layout; generating C++ from them would need a code generator run by node-gyp, and would still not check the
 * reply bytes. Feeding both the same frames checks the decisions and the bytes, with no build machinery.
 *
 * The contract (the fast path is a subset of respondArp, never a second opinion): for every frame,
 *   - when the fast path answers, respondArp answers the same frame with the very same bytes and reports no conflict;
 *   - the fast path answers exactly the frames respondArp answers without a conflict, except the ones it leaves to
 *     JS on purpose: 802.1Q-tagged frames (JS echoes the tag) and requests whose ARP sender MAC is ours.
 * A frame the fast path leaves goes to respondToFrame unchanged, so together the daemon answers as respondArp says.
 */
import { describe, expect, it } from 'vitest';
import { respondToFrame } from '../../src/announce/l2/l2-responder';
import { ownedIPSet, type L2Interface, type ResponderResult } from '../../src/announce/l2/l2-interface';
import { ADDON_MISSING_MESSAGE, nativeAddonStatus, PACKET_TYPES, type PacketType } from '../../src/native';
import { nativeAddon } from '../../src/native/native-addon';
import { ARPING_REQUEST_BROADCAST, ARPING_REQUEST_UNICAST, METALLB_NODE, METALLB_REPLY_60, METALLB_VIP } from '../announce/l2/l2-fixtures';
import { ip, mac } from '../announce/l2/l2-fixtures';

const addon = nativeAddonStatus();
if (!addon.loaded && process.env.CI) throw new Error(`${ADDON_MISSING_MESSAGE}: ${addon.why} (CI is set, so this is a failure)`);
const skip = addon.loaded ? undefined : `the native addon is not loaded (${addon.why})`;
if (skip) console.warn(`skipping the ARP fast path parity test: ${skip}`);

const OUR_MAC = mac('02:00:00:00:00:01');
const IFACE: L2Interface = { name: 'parity0', mac: OUR_MAC, addresses: [ip('192.0.2.1')] };
const OWNED_A = '192.0.2.10';
const OWNED_B = '192.0.2.11';
const OWNED = [OWNED_A, OWNED_B];
/** The requester's address, and one nobody here owns. */
const OTHER_IP = '192.0.2.20';
const NOT_OWNED_IP = '192.0.2.99';

const REQUESTER_MAC = mac('02:00:00:00:00:02');
const THIRD_MAC = mac('02:00:00:00:00:03');
const BROADCAST = mac('ff:ff:ff:ff:ff:ff');
const MULTICAST = mac('01:00:5e:00:00:01');
const ZERO_MAC = mac('00:00:00:00:00:00');

const ETHERTYPE_ARP = 0x0806;
const ETHERTYPE_IPV4 = 0x0800;
const ETHERTYPE_VLAN = 0x8100;
const ETHERTYPE_IPV6 = 0x86dd;
/** A TCI with PCP 3 and VLAN 100, so an echo that lost a bit would show. */
const VLAN_TCI = 0x6064;
const ETHERNET_HEADER_BYTES = 14;
const VLAN_TAG_BYTES = 4;
const ARP_PACKET_BYTES = 28;
const ETHERNET_MIN_FRAME_BYTES = 60;

const ipv4Number = (text: string): number => Number(ip(text).value);

/** What each field of a test frame is drawn from; every combination is built. */
const SPACE = {
  encapsulation: ['arp', 'vlanArp', 'ipv4EtherType'] as const,
  destination: { broadcast: BROADCAST, ours: OUR_MAC, otherUnicast: THIRD_MAC, multicast: MULTICAST },
  source: { ours: OUR_MAC, requester: REQUESTER_MAC, third: THIRD_MAC },
  hardwareType: [1, 6],
  protocolType: [ETHERTYPE_IPV4, ETHERTYPE_IPV6],
  addressLengths: [
    [6, 4],
    [6, 16],
    [8, 4],
  ] as const,
  operation: [0, 1, 2, 3],
  senderMAC: { ours: OUR_MAC, requester: REQUESTER_MAC, broadcast: BROADCAST, multicast: MULTICAST },
  senderIP: ['0.0.0.0', OWNED_A, OTHER_IP],
  targetIP: [OWNED_A, OWNED_B, OTHER_IP, NOT_OWNED_IP, '0.0.0.0'],
  length: ['truncated', 'exact', 'padded'] as const,
  /**
   * The pkttype the kernel gives the frame: what its destination MAC says (broadcast, host, multicast, otherHost),
   * or otherHost because it was tagged for a VLAN with no device here (the kernel strips the tag before a packet
   * socket sees it, so the bytes look untagged).
   */
  delivery: ['byDestination', 'foreignVlan'] as const,
};
/**
 * Not enumerated: the target hardware address, which RFC 826 leaves unread in a request and neither side reads
 * (zero here, as the Linux kernel sends it; the MetalLB capture below has ff:ff:ff:ff:ff:ff).
 */
const TARGET_MAC = ZERO_MAC;

type Encapsulation = (typeof SPACE.encapsulation)[number];
type Length = (typeof SPACE.length)[number];
type Delivery = (typeof SPACE.delivery)[number];

interface FrameFields {
  encapsulation: Encapsulation;
  destination: string;
  source: string;
  hardwareType: number;
  protocolType: number;
  addressLengths: readonly [number, number];
  operation: number;
  senderMAC: string;
  senderIP: string;
  targetIP: string;
  length: Length;
  delivery: Delivery;
}

function frameLength(headerBytes: number, length: Length): number {
  const exact = headerBytes + ARP_PACKET_BYTES;
  switch (length) {
    case 'truncated':
      return exact - 1;
    case 'exact':
      return exact;
    case 'padded':
      return ETHERNET_MIN_FRAME_BYTES + (headerBytes - ETHERNET_HEADER_BYTES);
  }
}

/** The frame as a packet socket hands it over: Ethernet header, optional 802.1Q tag, ARP packet, zero padding. */
function buildFrame(f: FrameFields, macs: Record<string, Uint8Array>): Buffer {
  const tagged = f.encapsulation === 'vlanArp';
  const headerBytes = ETHERNET_HEADER_BYTES + (tagged ? VLAN_TAG_BYTES : 0);
  const full = Buffer.alloc(Math.max(headerBytes + ARP_PACKET_BYTES, frameLength(headerBytes, f.length)));
  full.set(macs[f.destination] as Uint8Array, 0);
  full.set(macs[f.source] as Uint8Array, 6);
  let at = 12;
  if (tagged) {
    full.writeUInt16BE(ETHERTYPE_VLAN, at);
    full.writeUInt16BE(VLAN_TCI, at + 2);
    at += VLAN_TAG_BYTES;
  }
  full.writeUInt16BE(f.encapsulation === 'ipv4EtherType' ? ETHERTYPE_IPV4 : ETHERTYPE_ARP, at);
  at += 2;
  full.writeUInt16BE(f.hardwareType, at);
  full.writeUInt16BE(f.protocolType, at + 2);
  full[at + 4] = f.addressLengths[0];
  full[at + 5] = f.addressLengths[1];
  full.writeUInt16BE(f.operation, at + 6);
  full.set(macs[f.senderMAC] as Uint8Array, at + 8);
  full.writeUInt32BE(ipv4Number(f.senderIP), at + 14);
  full.set(TARGET_MAC, at + 18);
  full.writeUInt32BE(ipv4Number(f.targetIP), at + 24);
  return full.subarray(0, frameLength(headerBytes, f.length));
}

function* everyFrame(): Generator<FrameFields> {
  for (const encapsulation of SPACE.encapsulation)
    for (const destination of Object.keys(SPACE.destination))
      for (const source of Object.keys(SPACE.source))
        for (const hardwareType of SPACE.hardwareType)
          for (const protocolType of SPACE.protocolType)
            for (const addressLengths of SPACE.addressLengths)
              for (const operation of SPACE.operation)
                for (const senderMAC of Object.keys(SPACE.senderMAC))
                  for (const senderIP of SPACE.senderIP)
                    for (const targetIP of SPACE.targetIP)
                      for (const length of SPACE.length)
                        for (const delivery of SPACE.delivery)
                          yield {
                            encapsulation,
                            destination: `dst:${destination}`,
                            source: `src:${source}`,
                            hardwareType,
                            protocolType,
                            addressLengths,
                            operation,
                            senderMAC: `sha:${senderMAC}`,
                            senderIP,
                            targetIP,
                            length,
                            delivery,
                          };
}

/** Every named MAC of SPACE under a prefixed key, so a field's name says which role it plays. */
const MACS: Record<string, Uint8Array> = {
  ...prefixed('dst', SPACE.destination),
  ...prefixed('src', SPACE.source),
  ...prefixed('sha', SPACE.senderMAC),
};

/** The pkttype the kernel would give the frame (linux/if_packet.h; net/ethernet/eth.c eth_type_trans). */
function pkttypeOf(f: FrameFields): PacketType {
  if (f.delivery === 'foreignVlan') return 'otherHost';
  const byDestination: Record<string, PacketType> = {
    'dst:broadcast': 'broadcast',
    'dst:ours': 'host',
    'dst:otherUnicast': 'otherHost',
    'dst:multicast': 'multicast',
  };
  return byDestination[f.destination] as PacketType;
}

const pkttypeNumber = (name: PacketType): number => PACKET_TYPES.indexOf(name as (typeof PACKET_TYPES)[number]);

function prefixed(prefix: string, macs: Record<string, Uint8Array>): Record<string, Uint8Array> {
  return Object.fromEntries(Object.entries(macs).map(([name, value]) => [`${prefix}:${name}`, value]));
}

/** What the fast path must send for a frame, given respondArp's answer (the contract at the top). */
function expectedFastPathReply(fields: FrameFields, ts: ResponderResult): Uint8Array | null {
  if (ts.reply === undefined || ts.conflict !== undefined) return null;
  if (fields.encapsulation === 'vlanArp') return null; // left to JS on purpose: it echoes the tag
  if (fields.senderMAC === 'sha:ours') return null; // left to JS on purpose: our MAC claimed by another station
  return ts.reply;
}

const describeFields = (f: FrameFields): string => JSON.stringify(f);
const hexOf = (bytes: Uint8Array | null): string | null => (bytes === null ? null : Buffer.from(bytes).toString('hex'));

describe.skipIf(skip !== undefined)('ARP fast path parity with respondArp', () => {
  const table = () => ({ mac: Buffer.from(OUR_MAC), ips: OWNED.map(ipv4Number) });
  const owned = ownedIPSet(OWNED.map(ip));

  it('answers, drops and leaves to JS exactly as respondArp decides, with the same reply bytes, over every combination of fields', () => {
    const native = nativeAddon();
    const fastTable = table();
    const mismatches: string[] = [];
    const reached = new Map<string, number>();
    let frames = 0;
    let answeredByFastPath = 0;
    for (const fields of everyFrame()) {
      frames++;
      const frame = buildFrame(fields, MACS);
      const pkttype = pkttypeOf(fields);
      const ts = respondToFrame(frame, IFACE, owned, { pkttype });
      const outcome = ts.reply !== undefined ? (ts.conflict ? 'replyWithConflict' : 'reply') : ts.drop;
      reached.set(outcome, (reached.get(outcome) ?? 0) + 1);
      const want = hexOf(expectedFastPathReply(fields, ts));
      const got = hexOf(native.arpFastPathReply(frame, fastTable, pkttypeNumber(pkttype)));
      if (got !== null) answeredByFastPath++;
      if (got !== want && mismatches.length < 20) {
        mismatches.push(
          `${describeFields(fields)}\n  respondArp: ${outcome}\n  fast path: ${got ?? 'left to JS'}\n  expected:  ${want ?? 'left to JS'}`,
        );
      }
    }
    expect(mismatches.join('\n')).toBe('');
    // The enumeration reaches every rule of respondArp, and the fast path does answer the plain requests.
    expect(frames).toBe(622_080);
    expect([...reached.keys()].sort()).toEqual(
      [
        'badAddressLength',
        'badHardwareType',
        'badProtocolType',
        'badSender',
        'fromSelf',
        'notForUs',
        'notOwned',
        'notRequest',
        'reply',
        'replyWithConflict',
        'truncated',
        'unknownOperation',
        'unsupportedEtherType',
      ].sort(),
    );
    expect(answeredByFastPath).toBeGreaterThan(0);
  });

  it("answers the MetalLB lab capture's broadcast and unicast arping requests with the speaker's 60-byte reply", () => {
    const native = nativeAddon();
    const capture = { mac: Buffer.from(METALLB_NODE.mac), ips: [Number(METALLB_VIP.value)] };
    for (const request of [ARPING_REQUEST_BROADCAST, ARPING_REQUEST_UNICAST]) {
      expect(hexOf(native.arpFastPathReply(Buffer.from(request), capture))).toBe(hexOf(METALLB_REPLY_60));
    }
  });

  it('answers a broadcast request for an owned address only when the kernel received it for this host, not for a VLAN with no device here', () => {
    const native = nativeAddon();
    const request = Buffer.from(ARPING_REQUEST_BROADCAST);
    const capture = { mac: Buffer.from(METALLB_NODE.mac), ips: [Number(METALLB_VIP.value)] };
    const captureOwned = ownedIPSet([METALLB_VIP]);
    expect(hexOf(native.arpFastPathReply(request, capture, pkttypeNumber('broadcast')))).toBe(hexOf(METALLB_REPLY_60));
    expect(hexOf(respondToFrame(request, METALLB_NODE, captureOwned, { pkttype: 'broadcast' }).reply ?? null)).toBe(
      hexOf(METALLB_REPLY_60),
    );
    // The same bytes, as a packet socket sees a request tagged for VLAN 5 on an interface with no VLAN 5 device.
    expect(native.arpFastPathReply(request, capture, pkttypeNumber('otherHost'))).toBeNull();
    expect(respondToFrame(request, METALLB_NODE, captureOwned, { pkttype: 'otherHost' })).toMatchObject({ drop: 'notForUs' });
  });

  it('leaves frames too short for an Ethernet or 802.1Q header to JS', () => {
    const native = nativeAddon();
    for (const length of [0, 1, 13, 14, 17, 18, 41]) {
      const frame = Buffer.alloc(length, 0xff);
      expect(native.arpFastPathReply(frame, table())).toBeNull();
      expect(respondToFrame(frame, IFACE, owned).reply).toBeUndefined();
    }
  });
});
