/**
 * The body of an RTM_NEWADDR / RTM_DELADDR message (rtnetlink(7)), decoded for the link table: the ifaddrmsg
 * header and the one attribute it keeps, the address. The netlink package decodes every attribute into objects;
 * a dump of 10,000 VIPs on mlb0, every INTERFACE_RESCAN_INTERVAL_MS (netlink-links.ts), spent most of its time
 * there. Pure; tests feed it bytes.
 */
import { endianness } from 'node:os';
import { ipFromBytes } from '../../../ip';
import type { LinkAddress } from './interface-selection';

/** struct ifaddrmsg: family, prefixlen, flags, scope (one byte each), then the interface index (u32). */
const IFADDRMSG_BYTES = 8;
const INDEX_OFFSET = 4;
/** struct rtattr: length (u16, header included), type (u16); attributes are padded to RTA_ALIGNTO. */
const RTATTR_HEADER_BYTES = 4;
const RTA_ALIGNTO = 4;
/** The peer's address on point-to-point links, the interface's own elsewhere. */
const IFA_ADDRESS = 1;
/** The interface's own address, when it differs from IFA_ADDRESS. */
const IFA_LOCAL = 2;
const AF_INET = 2;
const AF_INET6 = 10;
const IPV4_BYTES = 4;
const IPV6_BYTES = 16;
const LITTLE_ENDIAN = endianness() === 'LE';

/** The body of an RTM_GETADDR dump request: an ifaddrmsg of zeros (AF_UNSPEC, every interface). */
export const ADDRESS_DUMP_REQUEST: Uint8Array = new Uint8Array(IFADDRMSG_BYTES);

/** One address message's interface index and address; undefined for another family or a malformed body. */
export function decodeAddressMessage(body: Uint8Array): { index: number; address: LinkAddress } | undefined {
  if (body.length < IFADDRMSG_BYTES) return undefined;
  const family = body[0];
  const size = family === AF_INET ? IPV4_BYTES : family === AF_INET6 ? IPV6_BYTES : 0;
  if (size === 0) return undefined;
  // Netlink speaks the host's byte order.
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  const index = view.getUint32(INDEX_OFFSET, LITTLE_ENDIAN);
  let local: Uint8Array | undefined;
  let address: Uint8Array | undefined;
  for (let at = IFADDRMSG_BYTES; at + RTATTR_HEADER_BYTES <= body.length;) {
    const length = view.getUint16(at, LITTLE_ENDIAN);
    const type = view.getUint16(at + 2, LITTLE_ENDIAN);
    if (length < RTATTR_HEADER_BYTES || at + length > body.length) return undefined;
    const value = body.subarray(at + RTATTR_HEADER_BYTES, at + length);
    if (type === IFA_LOCAL) local = value;
    else if (type === IFA_ADDRESS) address = value;
    at += Math.ceil(length / RTA_ALIGNTO) * RTA_ALIGNTO;
  }
  // IFA_LOCAL is the interface's own address (IFA_ADDRESS is the peer on point-to-point links).
  const bytes = local ?? address;
  if (!bytes || bytes.length !== size) return undefined;
  return { index, address: { ip: ipFromBytes(bytes), prefix: body[1] as number } };
}
