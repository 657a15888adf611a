/**
 * The NDP responder's decision, pure: a received frame in, a Neighbor Advertisement frame or a drop reason out.
 *
 * MetalLB's rules (internal/layer2/ndp.go processRequest): only Neighbor Solicitations; the solicitation must
 * carry a source link-layer address option (noSourceLinkLayer: MetalLB has no other MAC to answer); the target
 * must be owned here (notOwned). The answer (RFC 4861 7.2.4) is an NA with Solicited=1, Override=0 and a target
 * link-layer address option holding our MAC, sent to the solicitation's source address and source link-layer
 * address. Override=0 because a solicited answer should not displace an entry another node may hold.
 *
 * RFC 4861 7.1.1 validation happens in decodeNdp (hop limit 255, code 0, length, multicast target, options,
 * checksum). Beyond that: the Ethernet destination must be our MAC or the IPv6 destination's group MAC, the
 * IPv6 destination must be the target or its solicited-node group (7.2.3), DAD probes (unspecified source,
 * RFC 4862 5.4.3) are never answered, our own frames are ignored, and an NA from another MAC for an owned
 * target is reported as a conflict.
 */
import { type IP, ipEquals } from '../../ip';
import { EtherType, type EthernetFrame } from './ethernet';
import {
  advertisementSource,
  dropResult,
  type L2Interface,
  type ObservedConflict,
  type OwnedIPs,
  type ResponderResult,
} from './l2-interface';
import { isGroupMAC, macEquals } from './mac-address';
import { decodeNdp, encodeNdpFrame, isIpv6Multicast, NDP_HOP_LIMIT, type NdpPacket } from './ndp-packet';
import { sourceLinkLayerOf } from './ndp-options';
import { ipv6MulticastMAC, solicitedNodeAddress, UNSPECIFIED_ADDRESS } from './solicited-node';

export function respondNdp(frame: EthernetFrame, iface: L2Interface, owned: OwnedIPs): ResponderResult {
  if (frame.etherType !== EtherType.ipv6) return dropResult('unsupportedEtherType');
  if (macEquals(frame.source, iface.mac)) return dropResult('fromSelf');
  const decodedPacket = decodeNdp(frame.payload);
  if (!decodedPacket.ok) return dropResult(decodedPacket.reason, decodedPacket.detail);
  const packet = decodedPacket.value;
  const message = packet.message;
  if (message.kind !== 'solicitation') {
    return dropResult('notRequest', 'neighbor advertisement', advertisementConflict(frame, packet, iface, owned));
  }
  if (!isForUs(frame, packet.destination, iface)) return dropResult('notForUs');
  if (ipEquals(packet.source, UNSPECIFIED_ADDRESS)) return dropResult('dadProbe');
  const requesterMAC = sourceLinkLayerOf(message.options);
  if (requesterMAC === undefined) return dropResult('noSourceLinkLayer');
  if (!ipEquals(packet.destination, message.target) && !ipEquals(packet.destination, solicitedNodeAddress(message.target))) {
    return dropResult('badDestination');
  }
  if (!owned.has(message.target)) return dropResult('notOwned');
  if (isGroupMAC(requesterMAC)) return dropResult('badSender', 'multicast source link-layer address');

  const reply = encodeNdpFrame(
    {
      source: advertisementSource(iface, message.target),
      destination: packet.source,
      hopLimit: NDP_HOP_LIMIT,
      message: {
        kind: 'advertisement',
        router: false,
        solicited: true,
        override: false,
        target: message.target,
        options: [{ kind: 'targetLinkLayer', mac: iface.mac }],
      },
    },
    requesterMAC,
    iface.mac,
    frame.vlanTci,
  );
  return { reply, target: message.target };
}

/** Unicast to our MAC, or to the group MAC matching the IPv6 multicast destination (RFC 2464 section 7). */
function isForUs(frame: EthernetFrame, destination: IP, iface: L2Interface): boolean {
  if (macEquals(frame.destination, iface.mac)) return true;
  return isIpv6Multicast(destination) && macEquals(frame.destination, ipv6MulticastMAC(destination));
}

/** An NA for an owned target from another MAC: someone else answers, or announces, for our address. */
function advertisementConflict(frame: EthernetFrame, packet: NdpPacket, iface: L2Interface, owned: OwnedIPs): ObservedConflict | undefined {
  const message = packet.message;
  if (message.kind !== 'advertisement' || !owned.has(message.target)) return undefined;
  let mac = frame.source;
  for (const o of message.options) if (o.kind === 'targetLinkLayer') mac = o.mac;
  if (macEquals(mac, iface.mac)) return undefined;
  return { ip: message.target, mac, interface: iface.name, evidence: 'neighborAdvertisement' };
}
