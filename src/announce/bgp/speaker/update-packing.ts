/**
 * Packing routes into UPDATE messages of at most 4096 bytes (RFC 4271 4.1). Pure.
 *
 * Routes whose attributes are identical share messages, as many prefixes per message as fit: a router handles
 * one UPDATE with 800 prefixes far faster than 800 UPDATEs (MetalLB's native speaker sends one UPDATE per prefix,
 * which is what makes 10,000 services slow to converge). IPv4 prefixes travel in the NLRI and Withdrawn Routes
 * fields; IPv6 ones in MP_REACH_NLRI / MP_UNREACH_NLRI (RFC 4760), one family per message. Withdrawals go in
 * withdrawal-only messages, as MetalLB sends them (a tcpdump of MetalLB v0.16 talking to FRR: "Update Message
 * (2), length: 28, Withdrawn routes").
 */
import type { CIDR } from '../../../ip';
import { Afi, BGP_MAX_MESSAGE_BYTES, Safi, type BgpUpdate } from '../bgp-messages';
import type { RouteAttributes } from './route-attributes';
import type { FamilyName } from '../session/session-config';
import { attributeBytes, MP_UNREACH_VALUE_FIXED_BYTES, mpReachFixedBytes, prefixBytes, updateBytes } from './update-size';

/** Routes with one set of attributes, prefixes in the order they are to be sent. */
export interface AnnouncementGroup {
  readonly attributes: RouteAttributes;
  readonly prefixes: readonly CIDR[];
}

function emptyUpdate(): BgpUpdate {
  return { type: 'update', withdrawn: [], attributes: {}, nlri: [] };
}

/** The message size for `nlriBytes` octets of prefixes under these attributes. */
function announcementSizer(group: RouteAttributes): (nlriBytes: number) => number {
  const withoutPrefixes = updateBytes({ ...emptyUpdate(), attributes: group.attributes });
  if (group.family === 'ipv4') return (nlriBytes) => withoutPrefixes + nlriBytes;
  const mpFixed = mpReachFixedBytes(group.mpNextHop ? [group.mpNextHop] : []);
  return (nlriBytes) => withoutPrefixes + attributeBytes(mpFixed + nlriBytes);
}

function withdrawalSizer(family: FamilyName): (nlriBytes: number) => number {
  const empty = updateBytes(emptyUpdate());
  if (family === 'ipv4') return (nlriBytes) => empty + nlriBytes;
  return (nlriBytes) => empty + attributeBytes(MP_UNREACH_VALUE_FIXED_BYTES + nlriBytes);
}

/** True when one message can carry this prefix under these attributes at all. */
export function fitsInOneUpdate(attributes: RouteAttributes, prefix: CIDR): boolean {
  return announcementSizer(attributes)(prefixBytes(prefix)) <= BGP_MAX_MESSAGE_BYTES;
}

/** Greedy: fill each message until the next prefix would push it past the limit. */
function chunk(prefixes: readonly CIDR[], sizeFor: (nlriBytes: number) => number): CIDR[][] {
  const chunks: CIDR[][] = [];
  let current: CIDR[] = [];
  let bytes = 0;
  for (const prefix of prefixes) {
    const more = prefixBytes(prefix);
    if (current.length > 0 && sizeFor(bytes + more) > BGP_MAX_MESSAGE_BYTES) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(prefix);
    bytes += more;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

function announcement(group: RouteAttributes, nlri: CIDR[]): BgpUpdate {
  if (group.family === 'ipv4') return { type: 'update', withdrawn: [], attributes: group.attributes, nlri };
  const nextHops = group.mpNextHop ? [group.mpNextHop] : [];
  return {
    type: 'update',
    withdrawn: [],
    nlri: [],
    attributes: { ...group.attributes, mpReach: { afi: Afi.ipv6, safi: Safi.unicast, nextHops, nlri } },
  };
}

function withdrawal(family: FamilyName, withdrawn: CIDR[]): BgpUpdate {
  if (family === 'ipv4') return { ...emptyUpdate(), withdrawn };
  return { ...emptyUpdate(), attributes: { mpUnreach: { afi: Afi.ipv6, safi: Safi.unicast, withdrawn } } };
}

export function announcementUpdates(groups: readonly AnnouncementGroup[]): BgpUpdate[] {
  return groups.flatMap((g) => chunk(g.prefixes, announcementSizer(g.attributes)).map((nlri) => announcement(g.attributes, nlri)));
}

/** IPv4 withdrawals first, then IPv6, each in as few messages as fit. */
export function withdrawalUpdates(prefixes: readonly CIDR[]): BgpUpdate[] {
  const out: BgpUpdate[] = [];
  for (const family of ['ipv4', 'ipv6'] as const) {
    const ofFamily = prefixes.filter((p) => (p.ip.family === 4) === (family === 'ipv4'));
    out.push(...chunk(ofFamily, withdrawalSizer(family)).map((w) => withdrawal(family, w)));
  }
  return out;
}
