/**
 * Ethernet II frames (IEEE 802.3 clause 3.2.6, "Type" interpretation), with one optional IEEE 802.1Q tag.
 *
 *    0                   1                   2                   3
 *    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |                  Destination MAC (6 octets)                   |
 *   +                               +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |                               |                               |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+                               +
 *   |                     Source MAC (6 octets)                     |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |   [TPID 0x8100 (802.1Q)]      |   [TCI: PCP|DEI|VLAN ID]      |   <- only when tagged
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |          EtherType            |  Payload ...                  |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 * The frame as a packet socket sees it: no preamble, no FCS. The shortest frame on the wire is 64 octets with the
 * 4-octet FCS, so 60 here; a sender pads short payloads with zeros. MetalLB's ARP replies (mdlayher/ethernet)
 * are padded this way, which is why a tcpdump of a speaker shows "length 60" replies to 42-byte requests.
 */
import { decoded, dropped, type Decoded } from './drop-reasons';
import { MAC_BYTES, macAt, type MacAddress } from './mac-address';

/** EtherType values used here (IANA "IEEE 802 Numbers"). Append-only. */
export const EtherType = {
  ipv4: 0x0800,
  arp: 0x0806,
  /** IEEE 802.1Q customer VLAN tag protocol identifier. */
  vlan: 0x8100,
  ipv6: 0x86dd,
} as const;

/** Destination, source and EtherType. */
const ETHERNET_HEADER_BYTES = 14;
/** TPID + TCI of an 802.1Q tag. */
const VLAN_TAG_BYTES = 4;
/** Minimum frame without FCS (IEEE 802.3 minFrameSize 64 octets minus the 4-octet FCS). */
export const ETHERNET_MIN_FRAME_BYTES = 60;
/** The 12-bit VLAN identifier inside the TCI. */
const VLAN_ID_MASK = 0x0fff;

export interface EthernetFrame {
  readonly destination: MacAddress;
  readonly source: MacAddress;
  /** The EtherType after any 802.1Q tag. */
  readonly etherType: number;
  /** The 802.1Q Tag Control Information (PCP, DEI, VLAN ID) when the frame was tagged; kept so a reply can echo it. */
  readonly vlanTci?: number;
  /** Everything after the EtherType, padding included: the payload's own length field decides what counts. */
  readonly payload: Uint8Array;
}

export function vlanIdOf(tci: number): number {
  return tci & VLAN_ID_MASK;
}

/** Decodes a frame; the payload is a view into `bytes`, MACs are copies. Only one 802.1Q tag is unwrapped. */
export function decodeEthernet(bytes: Uint8Array): Decoded<EthernetFrame> {
  if (bytes.length < ETHERNET_HEADER_BYTES) return dropped('truncated', `ethernet frame of ${bytes.length} bytes`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let typeOffset = 2 * MAC_BYTES;
  let etherType = view.getUint16(typeOffset);
  let vlanTci: number | undefined;
  if (etherType === EtherType.vlan) {
    if (bytes.length < ETHERNET_HEADER_BYTES + VLAN_TAG_BYTES) return dropped('truncated', '802.1Q tag cut short');
    vlanTci = view.getUint16(typeOffset + 2);
    typeOffset += VLAN_TAG_BYTES;
    etherType = view.getUint16(typeOffset);
  }
  const frame: EthernetFrame = {
    destination: macAt(bytes, 0),
    source: macAt(bytes, MAC_BYTES),
    etherType,
    payload: bytes.subarray(typeOffset + 2),
    ...(vlanTci === undefined ? {} : { vlanTci }),
  };
  return decoded(frame);
}

export interface EncodeEthernetOptions {
  /** Pad with zeros to ETHERNET_MIN_FRAME_BYTES, as MetalLB's mdlayher/ethernet does for every frame it sends. */
  readonly padToMinimum?: boolean;
}

export function encodeEthernet(frame: EthernetFrame, options: EncodeEthernetOptions = {}): Uint8Array {
  if (frame.destination.length !== MAC_BYTES || frame.source.length !== MAC_BYTES) {
    throw new RangeError('ethernet addresses must be 6 bytes');
  }
  const tagged = frame.vlanTci !== undefined;
  const header = ETHERNET_HEADER_BYTES + (tagged ? VLAN_TAG_BYTES : 0);
  const natural = header + frame.payload.length;
  const length = options.padToMinimum ? Math.max(natural, ETHERNET_MIN_FRAME_BYTES) : natural;
  const out = new Uint8Array(length);
  const view = new DataView(out.buffer);
  out.set(frame.destination, 0);
  out.set(frame.source, MAC_BYTES);
  let offset = 2 * MAC_BYTES;
  if (tagged) {
    view.setUint16(offset, EtherType.vlan);
    view.setUint16(offset + 2, (frame.vlanTci as number) & 0xffff);
    offset += VLAN_TAG_BYTES;
  }
  view.setUint16(offset, frame.etherType);
  out.set(frame.payload, offset + 2);
  return out;
}
