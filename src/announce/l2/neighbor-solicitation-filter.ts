/**
 * Classic BPF programs (SO_ATTACH_FILTER) that let only one kind of NDP message reach user space: the responder
 * takes Neighbor Solicitations, `mlb arping` Neighbor Advertisements, and neither wakes for the rest of the IPv6
 * traffic on the interface. Offsets (untagged Ethernet II, no extension headers, which RFC 6980 forbids on NDP):
 *   12: EtherType (0x86dd)   14 + 6 = 20: IPv6 next header (58)   14 + 40 = 54: ICMPv6 type
 * A load past the end of a short frame makes the kernel drop it, which is what a truncated frame deserves.
 */
import { ACCEPT_WHOLE_FRAME, BPF_OPCODES, ETHERTYPE_OFFSET, type BpfInstruction } from '../../native';
import { EtherType } from './ethernet';
import { NEXT_HEADER_ICMPV6 } from './ipv6-icmpv6';
import { NdpType } from './ndp-packet';

const OFFSET_IPV6_NEXT_HEADER = 20;
const OFFSET_ICMPV6_TYPE = 54;

/** Untagged IPv6 frames carrying ICMPv6 of one type. */
function acceptIcmpv6Type(type: number): BpfInstruction[] {
  const { ldhAbs, ldbAbs, jeqK, retK } = BPF_OPCODES;
  return [
    { code: ldhAbs, jt: 0, jf: 0, k: ETHERTYPE_OFFSET },
    { code: jeqK, jt: 0, jf: 5, k: EtherType.ipv6 },
    { code: ldbAbs, jt: 0, jf: 0, k: OFFSET_IPV6_NEXT_HEADER },
    { code: jeqK, jt: 0, jf: 3, k: NEXT_HEADER_ICMPV6 },
    { code: ldbAbs, jt: 0, jf: 0, k: OFFSET_ICMPV6_TYPE },
    { code: jeqK, jt: 0, jf: 1, k: type },
    { code: retK, jt: 0, jf: 0, k: ACCEPT_WHOLE_FRAME },
    { code: retK, jt: 0, jf: 0, k: 0 },
  ];
}

export function acceptNeighborSolicitations(): BpfInstruction[] {
  return acceptIcmpv6Type(NdpType.neighborSolicitation);
}

export function acceptNeighborAdvertisements(): BpfInstruction[] {
  return acceptIcmpv6Type(NdpType.neighborAdvertisement);
}
