/**
 * How many bytes an UPDATE takes on the wire, computed from the message model without encoding it, so the speaker
 * can pack as many prefixes as fit into one message (RFC 4271 4.1: 4096 bytes at most; RFC 8654 extended
 * messages are not offered). Pure.
 *
 * RFC 4271 4.3, the UPDATE after the 19-byte header:
 *   +-----------------------------------------------------+
 *   |   Withdrawn Routes Length (2 octets)                |
 *   |   Withdrawn Routes (variable)                       |
 *   |   Total Path Attribute Length (2 octets)            |
 *   |   Path Attributes (variable)                        |
 *   |   Network Layer Reachability Information (variable) |
 *   +-----------------------------------------------------+
 * A prefix is its length octet and the fewest octets holding its bits. An attribute is flags, type, and a length
 * of one octet, or two when the Extended Length flag is set (RFC 4271 4.3: needed above 255 octets; mlb sets it
 * only then).
 */
import { IPV4_BYTES, IPV6_BYTES, type CIDR, type IP } from '../../../ip';
import { BGP_HEADER_BYTES, type PathAttributes, type BgpUpdate } from '../bgp-messages';

const LENGTH_FIELD_BYTES = 2;
const ATTRIBUTE_HEADER_BYTES = 3;
const EXTENDED_ATTRIBUTE_HEADER_BYTES = 4;
const ONE_OCTET_LENGTH_MAX = 255;
/** The Extended Length bit of the attribute flags (RFC 4271 4.3). */
const EXTENDED_LENGTH_FLAG = 0x10;
const ORIGIN_BYTES = 1;
const AS_PATH_SEGMENT_HEADER_BYTES = 2;
/** Every ASN is 4 octets: both sides speak the 4-octet ASN capability (RFC 6793). */
const ASN_BYTES = 4;
const UINT32_BYTES = 4;
const STANDARD_COMMUNITY_BYTES = 4;
const LARGE_COMMUNITY_BYTES = 12;
/** RFC 4760 3: AFI (2), SAFI (1), next hop length (1), then after the next hops one reserved octet. */
const MP_REACH_FIXED_BYTES = 5;
/** RFC 4760 4: AFI (2), SAFI (1). */
const MP_UNREACH_FIXED_BYTES = 3;
const BITS_PER_BYTE = 8;

/** The length octet and the prefix's significant octets (RFC 4271 4.3, RFC 4760 5). */
export function prefixBytes(prefix: CIDR): number {
  return 1 + Math.ceil(prefix.prefix / BITS_PER_BYTE);
}

function prefixListBytes(prefixes: readonly CIDR[]): number {
  let total = 0;
  for (const p of prefixes) total += prefixBytes(p);
  return total;
}

/** An attribute carrying `valueBytes` octets, header included. */
export function attributeBytes(valueBytes: number, flags = 0): number {
  const extended = valueBytes > ONE_OCTET_LENGTH_MAX || (flags & EXTENDED_LENGTH_FLAG) !== 0;
  return valueBytes + (extended ? EXTENDED_ATTRIBUTE_HEADER_BYTES : ATTRIBUTE_HEADER_BYTES);
}

function ipBytes(ip: IP): number {
  return ip.family === 4 ? IPV4_BYTES : IPV6_BYTES;
}

/** The MP_REACH_NLRI value without its NLRI. */
export function mpReachFixedBytes(nextHops: readonly IP[]): number {
  let total = MP_REACH_FIXED_BYTES;
  for (const nh of nextHops) total += ipBytes(nh);
  return total;
}

export const MP_UNREACH_VALUE_FIXED_BYTES = MP_UNREACH_FIXED_BYTES;

/** Every path attribute present, headers included. A field that is present, even empty, is one attribute. */
function pathAttributesBytes(a: PathAttributes): number {
  let total = 0;
  if (a.origin !== undefined) total += attributeBytes(ORIGIN_BYTES);
  if (a.asPath !== undefined) {
    let value = 0;
    for (const segment of a.asPath) value += AS_PATH_SEGMENT_HEADER_BYTES + ASN_BYTES * segment.asns.length;
    total += attributeBytes(value);
  }
  if (a.nextHop !== undefined) total += attributeBytes(ipBytes(a.nextHop));
  if (a.med !== undefined) total += attributeBytes(UINT32_BYTES);
  if (a.localPref !== undefined) total += attributeBytes(UINT32_BYTES);
  if (a.communities !== undefined) total += attributeBytes(STANDARD_COMMUNITY_BYTES * a.communities.length);
  if (a.largeCommunities !== undefined) total += attributeBytes(LARGE_COMMUNITY_BYTES * a.largeCommunities.length);
  if (a.mpReach !== undefined) total += attributeBytes(mpReachFixedBytes(a.mpReach.nextHops) + prefixListBytes(a.mpReach.nlri));
  if (a.mpUnreach !== undefined) total += attributeBytes(MP_UNREACH_FIXED_BYTES + prefixListBytes(a.mpUnreach.withdrawn));
  for (const o of a.other ?? []) total += attributeBytes(o.value.length, o.flags);
  return total;
}

/** The whole message, the 19-byte header included. */
export function updateBytes(update: BgpUpdate): number {
  return (
    BGP_HEADER_BYTES +
    LENGTH_FIELD_BYTES +
    prefixListBytes(update.withdrawn) +
    LENGTH_FIELD_BYTES +
    pathAttributesBytes(update.attributes) +
    prefixListBytes(update.nlri)
  );
}
