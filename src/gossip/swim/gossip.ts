import { pushPullScale } from './config';
import { log, numNodes, openStream, sendPacket, takeGossip, type Draft } from './draft';
import { MapMemo } from './layered-map';
import { addressOf, type Member } from './member-table';
import { localPushPull } from './push-pull-merge';

/**
 * The two periodic spreads (memberlist state.go gossip and pushPull).
 * gossip: every GossipInterval, pending broadcasts go to GossipNodes random members that are alive, suspect,
 * or dead for less than GossipToTheDeadTime (the dead learn of it and refute); left ones get nothing. The
 * round stops at the first member for whom nothing is left to send.
 * pushPull: every PushPullInterval (scaled above 32 nodes), a full exchange with one random alive member.
 */
export function gossipRound(d: Draft): void {
  const targets = d.random.pickFrom(d.config.gossipNodes, gossipTargets(d));
  for (const target of targets) {
    const messages = takeGossip(d);
    if (messages.length === 0) return;
    sendPacket(d, addressOf(target), messages, 'gossip');
  }
}

/**
 * The members a gossip round may pick, in table order: alive, suspect, or dead for less than GossipToTheDeadTime.
 * Every node asks on every tick (5 to 10 times a second), so the table is walked once per change of it (a
 * memo), and again only while a dead member's time to be told is running (that part depends on the clock).
 */
function gossipTargets(d: Draft): readonly Member[] {
  const self = d.self.name;
  // A table belongs to one node, so leaving ourselves out inside the memo is safe.
  const census = d.members.memo(GOSSIP_CENSUS, (members) => {
    const candidates: Member[] = [];
    let dead = 0;
    for (const m of members.values()) {
      if (m.state === 'left' || m.name === self) continue;
      candidates.push(m);
      if (m.state === 'dead') dead++;
    }
    return { candidates, dead };
  });
  if (census.dead === 0) return census.candidates;
  const window = d.config.gossipToTheDeadTime;
  return census.candidates.filter((m) => m.state !== 'dead' || d.now - m.stateChange <= window);
}

const GOSSIP_CENSUS = new MapMemo<string, Member, { readonly candidates: readonly Member[]; readonly dead: number }>();

export function pushPullRound(d: Draft): void {
  d.nextPushPullAt = d.now + pushPullScale(d.config.pushPullInterval, numNodes(d));
  const [peer] = d.random.pick(1, [...d.members.values()], (m) => m.name !== d.self.name && m.state === 'alive');
  if (!peer) return;
  openStream(d, localPushPull(d, false), {
    purpose: 'pushPull',
    to: addressOf(peer),
    deadline: d.now + d.config.tcpTimeout,
  });
  log(d, 'debug', 'pushPullStarted', `push/pull with ${peer.name}`);
}
