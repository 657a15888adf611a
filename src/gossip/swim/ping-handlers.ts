import type { Ack, IndirectPing, Nack, Ping } from '../messages';
import type { PeerAddress } from './address';
import { log, nextSeqNo, sendWithPiggyback, type Draft } from './draft';
import { probeAcked, probeNacked } from './probe';

/**
 * Answering others' probes (memberlist net.go handlePing, handleIndirectPing, handleAck, handleNack).
 * Replies go to the Source* address a ping carries (a node behind NAT or bound to 0.0.0.0 names where it
 * listens), else to the packet's source. Every reply piggybacks pending broadcasts.
 */

function replyAddress(m: { sourceAddr?: Uint8Array; sourcePort?: number; sourceNode?: string }, from: PeerAddress): PeerAddress {
  if (m.sourceAddr && m.sourceAddr.length > 0 && m.sourcePort) {
    return { addr: m.sourceAddr, port: m.sourcePort, ...(m.sourceNode ? { name: m.sourceNode } : {}) };
  }
  return from;
}

export function handlePing(d: Draft, ping: Ping, from: PeerAddress): void {
  if (ping.node !== '' && ping.node !== d.self.name) {
    log(d, 'warn', 'pingForOtherNode', `got ping for unexpected node '${ping.node}'`, { seqNo: ping.seqNo });
    return;
  }
  const ack: Ack = { type: 'ack', seqNo: ping.seqNo };
  sendWithPiggyback(d, replyAddress(ping, from), ack, 'ack');
}

/** Relay a probe: ping the target with our own sequence number and remember whom to answer. */
export function handleIndirectPing(d: Draft, req: IndirectPing, from: PeerAddress): void {
  // Protocol 1 requests carry no port: the target listens on the same port as we do.
  const port = req.port === 0 ? d.self.port : req.port;
  const seqNo = nextSeqNo(d);
  d.relays.set(seqNo, {
    requesterSeqNo: req.seqNo,
    replyTo: replyAddress(req, from),
    target: req.node,
    wantsNack: req.nack,
    expiresAt: d.now + d.config.probeTimeout,
  });
  const ping: Ping = {
    type: 'ping',
    seqNo,
    node: req.node,
    sourceAddr: d.self.addr,
    sourcePort: d.self.port,
    sourceNode: d.self.name,
  };
  sendWithPiggyback(d, { addr: req.target, port, ...(req.node ? { name: req.node } : {}) }, ping, 'relayPing');
}

export function handleAck(d: Draft, ack: Ack): void {
  if (probeAcked(d, ack.seqNo)) return;
  const relay = d.relays.get(ack.seqNo);
  if (relay) {
    d.relays.delete(ack.seqNo);
    sendWithPiggyback(d, relay.replyTo, { type: 'ack', seqNo: relay.requesterSeqNo }, 'relayAck');
    return;
  }
  log(d, 'debug', 'unexpectedAck', `ack for no pending probe`, { seqNo: ack.seqNo });
}

export function handleNack(d: Draft, nack: Nack): void {
  if (!probeNacked(d, nack.seqNo)) log(d, 'debug', 'unexpectedAck', `nack for no pending probe`, { seqNo: nack.seqNo });
}

/** ProbeTimeout after a relay request without the target's ack: nack if asked to, and forget it. */
export function relayExpired(d: Draft, seqNo: number): void {
  const relay = d.relays.get(seqNo);
  if (!relay) return;
  d.relays.delete(seqNo);
  if (!relay.wantsNack) return;
  sendWithPiggyback(d, relay.replyTo, { type: 'nack', seqNo: relay.requesterSeqNo }, 'nack');
  log(d, 'debug', 'relayNack', `no ack from ${relay.target} for a relayed ping: nack`, { seqNo: relay.requesterSeqNo });
}
