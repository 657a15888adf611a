import { pushPullScale } from './config';
import { log, numNodes, openStream, sendPacket, takeGossip, type Draft } from './draft';
import { addressOf } from './member-table';
import { localPushPull } from './push-pull-merge';

/**
 * The two periodic spreads (memberlist state.go gossip and pushPull).
 * gossip: every GossipInterval, pending broadcasts go to GossipNodes random members that are alive, suspect,
 * or dead for less than GossipToTheDeadTime (the dead learn of it and refute); left ones get nothing. The
 * round stops at the first member for whom nothing is left to send.
 * pushPull: every PushPullInterval (scaled above 32 nodes), a full exchange with one random alive member.
 */
export function gossipRound(d: Draft): void {
  const targets = d.random.pick(d.config.gossipNodes, [...d.members.values()], (m) => {
    if (m.name === d.self.name) return false;
    switch (m.state) {
      case 'alive':
      case 'suspect':
        return true;
      case 'dead':
        return d.now - m.stateChange <= d.config.gossipToTheDeadTime;
      case 'left':
        return false;
    }
  });
  for (const target of targets) {
    const messages = takeGossip(d);
    if (messages.length === 0) return;
    sendPacket(d, addressOf(target), messages, 'gossip');
  }
}

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
