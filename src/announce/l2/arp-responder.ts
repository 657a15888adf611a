/**
 * The ARP responder's decision, pure: a received frame in, a reply frame or a drop reason out.
 *
 * MetalLB's rules (internal/layer2/arp.go processRequest), in its order:
 *   1. only requests are answered: replies and announcements from others are not (notRequest);
 *   2. the Ethernet destination must be broadcast or our MAC (notForUs): arping's follow-ups are unicast;
 *   3. the target IP must be owned on this interface (notOwned);
 * then a reply "target is-at our MAC", unicast to the requester's sender hardware address, padded to 60 octets.
 *
 * Beyond MetalLB: frames from our own MAC are ignored (a packet socket sees its own sends), a multicast sender
 * MAC is not answered, an 802.1Q tag is echoed, and another MAC claiming an owned address is reported as a
 * conflict for the split-brain check. ARP probes (sender 0.0.0.0, RFC 5227) are answered as the kernel does,
 * which tells the prober the address is taken.
 *
 * This function is the one statement of these rules. The addon's ARP fast path (src/native/arp-fast-path.cc)
 * answers a subset of these frames in C++ without calling JS; test/native/arp-fast-path-parity.test.ts feeds both
 * every combination of the fields that matter and fails if the fast path answers anything this would not, or with
 * other bytes. Change a rule here and that test says whether the C++ side must follow.
 */
import { arpReplyTo, ArpOperation, decodeArp, encodeArpFrame, isArpAnnouncement, isArpProbe, type ArpPacket } from './arp-packet';
import { EtherType, type EthernetFrame } from './ethernet';
import { dropResult, type L2Interface, type ObservedConflict, type OwnedIPs, type ResponderResult } from './l2-interface';
import { isBroadcastMAC, isGroupMAC, macEquals } from './mac-address';

export function respondArp(frame: EthernetFrame, iface: L2Interface, owned: OwnedIPs): ResponderResult {
  if (frame.etherType !== EtherType.arp) return dropResult('notArp');
  if (macEquals(frame.source, iface.mac)) return dropResult('fromSelf');
  const decodedPacket = decodeArp(frame.payload);
  if (!decodedPacket.ok) return dropResult(decodedPacket.reason, decodedPacket.detail);
  const packet = decodedPacket.value;
  const conflict = arpConflict(packet, iface, owned);

  if (packet.operation !== ArpOperation.request) return dropResult('notRequest', 'ARP reply', conflict);
  if (isArpAnnouncement(packet) && !isArpProbe(packet)) return dropResult('notRequest', 'ARP announcement', conflict);
  if (!isBroadcastMAC(frame.destination) && !macEquals(frame.destination, iface.mac)) {
    return dropResult('notForUs', undefined, conflict);
  }
  if (!owned.has(packet.targetIP)) return dropResult('notOwned', undefined, conflict);
  if (isGroupMAC(packet.senderMAC)) return dropResult('badSender', 'multicast sender hardware address', conflict);

  const reply = encodeArpFrame(arpReplyTo(packet, iface.mac, packet.targetIP), packet.senderMAC, iface.mac, frame.vlanTci);
  return conflict ? { reply, target: packet.targetIP, conflict } : { reply, target: packet.targetIP };
}

/** Another MAC naming an owned address as its own (sender) address. */
function arpConflict(packet: ArpPacket, iface: L2Interface, owned: OwnedIPs): ObservedConflict | undefined {
  if (isArpProbe(packet) || macEquals(packet.senderMAC, iface.mac) || !owned.has(packet.senderIP)) return undefined;
  const evidence = packet.operation === ArpOperation.reply ? 'arpReply' : isArpAnnouncement(packet) ? 'arpAnnouncement' : 'arpRequest';
  return { ip: packet.senderIP, mac: packet.senderMAC, interface: iface.name, evidence };
}
