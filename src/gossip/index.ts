// src/gossip: memberlist-compatible SWIM. codec/ (pure wire formats), swim/ (the pure state machine),
// transport/ (UDP+TCP sockets), and GossipNode, the shell that runs them; node meta and member facts carry
// this node's labels, conditions, drain and warm-up to the election.
export { GossipNode, type Gossip, type GossipNodeOptions, type JoinResult } from './gossip-node';
export type { GossipCounters } from './gossip-stats';
export { decodeNodeMeta, encodeNodeMeta, type NodeMeta, NodeMetaError } from './node-meta';
export { memberFacts, type MemberFacts } from './member-facts';
export { FAST_CONFIG, LAN_CONFIG, WAN_CONFIG, SWIM_PROFILES, type SwimConfig, type Member } from './swim';
export { parseHostPort, formatHostPort, type HostPort } from './transport/address';
