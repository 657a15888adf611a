/**
 * One entry point for a packet socket's receive loop: whole Ethernet frame in, reply or drop out. Dispatches on
 * the EtherType to the ARP or NDP responder; never throws (the fuzz test holds it to that).
 */
import { respondArp } from './arp-responder';
import { decodeEthernet, EtherType } from './ethernet';
import { dropResult, type L2Interface, type OwnedIPs, type ResponderResult } from './l2-interface';
import { respondNdp } from './ndp-responder';

export function respondToFrame(bytes: Uint8Array, iface: L2Interface, owned: OwnedIPs): ResponderResult {
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
