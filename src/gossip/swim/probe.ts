import type { Ping } from '../messages';
import { FAST_MEMBER_RTT_FRACTION } from './config';
import { applyHealthDelta, failedProbeDelta, HealthDelta, scaleByHealth } from './awareness';
import { bump, log, nextSeqNo, openStream, sendPacket, sendWithPiggyback, writableProbeOrder, type Draft } from './draft';
import { addressOf, isDeadOrLeft, protocolMax, PROTOCOL_NACK, PROTOCOL_TCP_PING, reapAndShuffle, type Member } from './member-table';
import type { ProbeRound } from './state';
import { suspectNode } from './suspect-dead';

/**
 * The probe round (memberlist state.go probe and probeNode), split at its three moments:
 *   startProbe   (every ProbeInterval): ping the next member of the shuffled order;
 *   probeIndirect (ProbeTimeout later, no ack yet): IndirectChecks alive peers relay a ping, with nack requests
 *                for peers of protocol >= 4, and a TCP ping goes beside them (target protocol >= 3);
 *   probeExpired (ProbeInterval x (health + 1) after the ping, still no ack): suspect the target, unless the
 *                TCP ping got through; health rises by the nacks that did not come (or by 1 without nackers).
 * An ack at any moment ends the round as a success and lowers health by one.
 */

/**
 * The next member to probe, walking the order and reshuffling (and reaping) at each wrap. memberlist gives up
 * for the tick once it has looked at as many entries as the list holds, counting the wrap as one, so in a
 * 3-node cluster a tick is sometimes lost when we sit at the end of one pass and the start of the next; here
 * the walk may cover the rest of this pass and all of the next before it gives up.
 */
function nextTarget(d: Draft): Member | undefined {
  const limit = 2 * d.probeOrder.length + 1;
  for (let looked = 0; looked < limit; looked++) {
    if (d.probeIndex >= d.probeOrder.length) {
      const reaped = reapAndShuffle(d.members, writableProbeOrder(d), d.now, d.config.gossipToTheDeadTime, d.self.name, d.random);
      for (const name of reaped) {
        d.recentRtt.delete(name);
        d.lastHeard.delete(name);
        log(d, 'debug', 'reaped', `forgetting ${name}: gone longer than GossipToTheDeadTime`);
      }
      d.probeIndex = 0;
      continue;
    }
    const name = d.probeOrder[d.probeIndex]!;
    d.probeIndex++;
    const member = d.members.get(name);
    if (name !== d.self.name && member && !isDeadOrLeft(member)) return member;
  }
  return undefined;
}

function pingFor(d: Draft, target: string, seqNo: number): Ping {
  return {
    type: 'ping',
    seqNo,
    node: target,
    sourceAddr: d.self.addr,
    sourcePort: d.self.port,
    sourceNode: d.self.name,
  };
}

export function startProbe(d: Draft): void {
  const target = nextTarget(d);
  if (!target) return;
  const interval = scaleByHealth(d.config.probeInterval, d.health);
  const seqNo = nextSeqNo(d);
  const ping = pingFor(d, target.name, seqNo);
  const to = addressOf(target);
  if (target.state === 'alive') {
    sendWithPiggyback(d, to, ping, 'ping');
  } else {
    // A suspect hears the accusation with the ping, so it can refute at once.
    sendPacket(d, to, [ping, { type: 'suspect', incarnation: target.incarnation, node: target.name, from: d.self.name }], 'pingSuspect');
  }
  d.probe = {
    target: target.name,
    to,
    targetProtocolMax: protocolMax(target),
    seqNo,
    incarnation: target.incarnation,
    sentAt: d.now,
    indirectAt: d.now + d.config.probeTimeout,
    deadline: d.now + interval,
    indirectSent: false,
    expectedNacks: 0,
    nacks: 0,
    tcpContacted: false,
  };
  bump(d, 'probes');
}

export function probeIndirect(d: Draft): void {
  const probe = d.probe;
  if (!probe || probe.indirectSent) return;
  const retries = sendRetries(d, probe);
  const peers = d.random.pick(
    d.config.indirectChecks,
    [...d.members.values()],
    (m) => m.name !== d.self.name && m.name !== probe.target && m.state === 'alive',
  );
  let expectedNacks = 0;
  for (const peer of peers) {
    const nack = protocolMax(peer) >= PROTOCOL_NACK;
    if (nack) expectedNacks++;
    sendWithPiggyback(
      d,
      addressOf(peer),
      {
        type: 'indirectPing',
        seqNo: probe.seqNo,
        target: probe.to.addr,
        port: probe.to.port,
        node: probe.target,
        nack,
        sourceAddr: d.self.addr,
        sourcePort: d.self.port,
        sourceNode: d.self.name,
      },
      'indirectPing',
    );
  }
  let tcpStream: number | undefined;
  if (!d.config.disableTcpPings && probe.targetProtocolMax >= PROTOCOL_TCP_PING) {
    // A node cut off from UDP but reachable over TCP would otherwise flap (and spread stale state by push/pull).
    tcpStream = openStream(d, pingFor(d, probe.target, probe.seqNo), {
      purpose: 'tcpPing',
      to: probe.to,
      seqNo: probe.seqNo,
      deadline: probe.deadline,
    });
  }
  d.probe = {
    ...probe,
    indirectSent: true,
    expectedNacks,
    ...(retries ? { retries } : {}),
    ...(tcpStream === undefined ? {} : { tcpStream }),
  };
  log(d, 'debug', 'probeIndirect', `failed ping: ${probe.target} (timeout reached), asking ${peers.length} peers`, {
    retries: retries?.seqNos.length ?? 0,
    relays: peers.length,
    expectedNacks,
    tcp: tcpStream !== undefined,
  });
}

function endProbe(d: Draft, probe: ProbeRound): void {
  d.probe = undefined;
  if (probe.tcpStream !== undefined) d.streams.delete(probe.tcpStream);
}

export function probeExpired(d: Draft): void {
  const probe = d.probe;
  if (!probe) return;
  if (heardDuringRound(d, probe)) {
    // One fresh direct ping, same sequence number (a late ack of the first round still counts). Not a whole
    // round again: when the prober itself is the slow one, more relays and streams are more work for it, and in
    // the simulation of an overloaded node that turned its flapping into false deaths of the healthy ones.
    const interval = scaleByHealth(d.config.probeInterval, d.health);
    sendPacket(d, probe.to, [pingFor(d, probe.target, probe.seqNo)], 'ping');
    d.probe = { ...probe, extended: true, deadline: d.now + interval };
    bump(d, 'probesExtended');
    log(
      d,
      'debug',
      'probeExtended',
      `no ack from ${probe.target}, but it was heard from during the round (or we ran late): one more round`,
      {
        heardMsAgo: d.now - (d.lastHeard.get(probe.target) ?? d.now),
        lateMs: d.now - probe.deadline,
      },
    );
    return;
  }
  endProbe(d, probe);
  if (probe.tcpContacted) {
    d.health = applyHealthDelta(d.health, HealthDelta.probeSucceeded, d.config.awarenessMaxMultiplier);
    log(d, 'warn', 'probeTcpOnly', `was able to connect to ${probe.target} but other probes failed, ` + `network may be misconfigured`);
    return;
  }
  const delta = failedProbeDelta(probe.expectedNacks, probe.nacks);
  d.health = applyHealthDelta(d.health, delta, d.config.awarenessMaxMultiplier);
  bump(d, 'probesFailed');
  log(d, 'info', 'probeFailed', `suspect ${probe.target} has failed, no acks received`, {
    expectedNacks: probe.expectedNacks,
    nacks: probe.nacks,
    health: d.health,
  });
  suspectNode(d, { type: 'suspect', incarnation: probe.incarnation, node: probe.target, from: d.self.name });
}

/**
 * A deadline handled this much later than it was due means our own event loop was blocked (a starved CPU, a long
 * GC): what we did not hear may simply not have been read yet. Lifeguard's point: judge others only when healthy.
 */
export const LATE_DEADLINE_MS = 50;

/**
 * extendWhenHeard: the round was not extended yet, and either the target sent us a packet since it began, or we
 * ourselves were too late to judge (the deadline fired LATE_DEADLINE_MS or more after it was due).
 */
function heardDuringRound(d: Draft, probe: ProbeRound): boolean {
  if (!d.config.extendWhenHeard || probe.extended) return false;
  if (d.now - probe.deadline >= LATE_DEADLINE_MS) return true;
  const heard = d.lastHeard.get(probe.target);
  return heard !== undefined && heard >= probe.sentAt;
}

/**
 * mlb's directPingRetries, sent when the ack is late, for a member that answered quickly last time; each copy
 * with a sequence number of its own, and the first ack of any copy ends the round.
 */
function sendRetries(d: Draft, probe: ProbeRound): ProbeRound['retries'] {
  if (!lateAckMeansLoss(d, probe.target)) return undefined;
  const seqNos = Array.from({ length: d.config.directPingRetries }, () => nextSeqNo(d));
  for (const seqNo of seqNos) sendPacket(d, probe.to, [pingFor(d, probe.target, seqNo)], 'ping');
  return { seqNos, sentAt: d.now };
}

/** Only for a member that answered quickly last time (see SwimConfig.directPingRetries). */
function lateAckMeansLoss(d: Draft, target: string): boolean {
  if (d.config.directPingRetries <= 0) return false;
  const rtt = d.recentRtt.get(target);
  return rtt !== undefined && rtt <= d.config.probeTimeout * FAST_MEMBER_RTT_FRACTION;
}

/** An ack for the probe in flight: success. Returns false when the ack is not for it. */
export function probeAcked(d: Draft, seqNo: number): boolean {
  const probe = d.probe;
  const ofRetry = probe?.retries?.seqNos.includes(seqNo) ?? false;
  if (!probe || (probe.seqNo !== seqNo && !ofRetry)) return false;
  endProbe(d, probe);
  // A slow ack marks the member slow until a quick one comes again, so a busy member does not get extra pings
  // round after round: the retries cannot pile load onto a node that is already behind. An ack of a retry is
  // timed from the retry: when it came quickly, the first copy or its ack was lost and the member is as quick as
  // ever, so the next round still gets retries. (Timed from the first copy, one loss made the member look slow,
  // the next round went without retries, and a second loss in a row was a suspicion: all four false suspicions
  // of one 10-minute soak went that way. Timed from the retries whatever was acked, a busy member's late ack of
  // the first copy looked quick, and the retries piled on it: false deaths in the simulation.)
  d.recentRtt.set(probe.target, d.now - (ofRetry ? probe.retries!.sentAt : probe.sentAt));
  d.health = applyHealthDelta(d.health, HealthDelta.probeSucceeded, d.config.awarenessMaxMultiplier);
  log(d, 'debug', 'probeAcked', `ack from ${probe.target}`, { rtt: d.now - probe.sentAt, indirect: probe.indirectSent });
  return true;
}

/** A nack for the probe in flight: a relay is alive and could not reach the target either. */
export function probeNacked(d: Draft, seqNo: number): boolean {
  const probe = d.probe;
  if (!probe || probe.seqNo !== seqNo) return false;
  // memberlist buffers at most IndirectChecks + 1 nacks per probe.
  d.probe = { ...probe, nacks: Math.min(probe.nacks + 1, d.config.indirectChecks + 1) };
  return true;
}

/** The TCP ping's ack arrived: remember it; the round still waits for its deadline (as memberlist does). */
export function probeTcpAcked(d: Draft, stream: number, seqNo: number): boolean {
  const probe = d.probe;
  if (!probe || probe.tcpStream !== stream || probe.seqNo !== seqNo) return false;
  d.probe = { ...probe, tcpContacted: true };
  return true;
}
