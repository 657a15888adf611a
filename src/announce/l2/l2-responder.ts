/**
 * One entry point for a packet socket's receive loop: whole Ethernet frame in, reply or drop out. Dispatches on
 * the EtherType to the ARP or NDP responder; never throws (the fuzz test holds it to that).
 *
 * `receipt` is how the kernel classified the frame (the packet socket's onFrame info). A frame it received for
 * another station (OTHER_HOST_PKTTYPE) is not for us whatever its bytes say: above all a request tagged for a VLAN
 * this host has no device for, which reaches the socket with its tag removed and would otherwise be answered,
 * untagged, on the wrong segment. The kernel's ARP and NDP ignore those; so does this. The ARP fast path in the
 * addon applies the same rule (src/native/arp-fast-path.cc).
 */
import { respondArp } from './arp-responder';
import { decodeEthernet, EtherType } from './ethernet';
import { dropResult, OTHER_HOST_PKTTYPE, type FrameReceipt, type L2Interface, type OwnedIPs, type ResponderResult } from './l2-interface';
import { respondNdp } from './ndp-responder';

export function respondToFrame(bytes: Uint8Array, iface: L2Interface, owned: OwnedIPs, receipt?: FrameReceipt): ResponderResult {
  if (receipt?.pkttype === OTHER_HOST_PKTTYPE) {
    return dropResult('notForUs', 'received for another station (PACKET_OTHERHOST): another MAC, or a VLAN with no device here');
  }
  const frame = decodeEthernet(bytes);
  if (!frame.ok) return dropResult(frame.reason, frame.detail);
  switch (frame.value.etherType) {
    case EtherType.arp:
      return respondArp(frame.value, iface, owned);
    case EtherType.ipv6:
      return respondNdp(frame.value, iface, owned);
    default:
      return dropResult('unsupportedEtherType', `EtherType 0x${frame.value.etherType.toString(16)}`);
  }
}
