/**
 * The classic BPF program the NDP responder's packet socket carries (SO_ATTACH_FILTER): only untagged IPv6 frames
 * whose next header is ICMPv6 and whose ICMPv6 type is Neighbor Solicitation reach user space, so the responder
 * does not wake for the rest of the IPv6 traffic on the interface. Offsets (untagged Ethernet II, no extension
 * headers, which RFC 6980 forbids on NDP anyway):
 *   12: EtherType (0x86dd)   14 + 6 = 20: IPv6 next header (58)   14 + 40 = 54: ICMPv6 type (135)
 * A load past the end of a short frame makes the kernel drop it, which is what a truncated frame deserves.
 */
import type { BpfInstruction } from '../../native';

const LDH_ABS = 0x28; // A <- u16 at k
const LDB_ABS = 0x30; // A <- u8 at k
const JEQ_K = 0x15;
const RET_K = 0x06;
const ACCEPT = 0xffffffff;

export const ETHERTYPE_IPV6 = 0x86dd;
export const IPPROTO_ICMPV6 = 58;
export const ICMPV6_NEIGHBOR_SOLICITATION = 135;

export function acceptNeighborSolicitations(): BpfInstruction[] {
  return [
    { code: LDH_ABS, jt: 0, jf: 0, k: 12 },
    { code: JEQ_K, jt: 0, jf: 5, k: ETHERTYPE_IPV6 },
    { code: LDB_ABS, jt: 0, jf: 0, k: 20 },
    { code: JEQ_K, jt: 0, jf: 3, k: IPPROTO_ICMPV6 },
    { code: LDB_ABS, jt: 0, jf: 0, k: 54 },
    { code: JEQ_K, jt: 0, jf: 1, k: ICMPV6_NEIGHBOR_SOLICITATION },
    { code: RET_K, jt: 0, jf: 0, k: ACCEPT },
    { code: RET_K, jt: 0, jf: 0, k: 0 },
  ];
}
