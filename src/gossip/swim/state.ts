import type { BroadcastQueue } from './broadcast-queue';
import type { SwimConfig } from './config';
import type { PeerAddress } from './address';
import type { Member } from './member-table';
import type { Suspicion } from './suspicion';
import type { RngState } from './random';

/** The local node's identity: what it advertises in every alive message about itself. */
export interface LocalIdentity {
  readonly name: string;
  readonly addr: Uint8Array;
  readonly port: number;
  readonly vsn: Uint8Array;
}

/** One probe in flight (memberlist probeNode). */
export interface ProbeRound {
  readonly target: string;
  /** Where the target was when the probe began, and its pmax then (memberlist probes a copy of the node). */
  readonly to: PeerAddress;
  readonly targetProtocolMax: number;
  readonly seqNo: number;
  /** The target's incarnation when the probe began: a failed probe suspects that incarnation. */
  readonly incarnation: number;
  readonly sentAt: number;
  /**
   * The direct retries (SwimConfig.directPingRetries): each copy has a sequence number of its own, so an ack
   * says which copy got through. An ack of a retry, timed from when it went out, tells a lost first copy from a
   * slow member (see probeAcked).
   */
  readonly retries?: { readonly seqNos: readonly number[]; readonly sentAt: number };
  /** Direct ping gives up here and the indirect phase begins (ProbeTimeout). */
  readonly indirectAt: number;
  /** The probe fails here (ProbeInterval x (health + 1)). */
  readonly deadline: number;
  readonly indirectSent: boolean;
  readonly expectedNacks: number;
  readonly nacks: number;
  readonly tcpStream?: number;
  readonly tcpContacted: boolean;
  /** The round was extended once because the target was heard from (SwimConfig.extendWhenHeard). */
  readonly extended?: boolean;
}

/** An indirect ping we relay for another member (memberlist handleIndirectPing). */
export interface IndirectRelay {
  /** The sequence number the requester used: our ack and nack carry it. */
  readonly requesterSeqNo: number;
  readonly replyTo: PeerAddress;
  readonly target: string;
  readonly wantsNack: boolean;
  /** ProbeTimeout after the request: send the nack (if asked) and forget the relay. */
  readonly expiresAt: number;
}

/** A stream exchange we started and whose reply we wait for. */
export type PendingStream =
  | { readonly purpose: 'join'; readonly to: PeerAddress; readonly request: number; readonly deadline: number }
  | { readonly purpose: 'pushPull'; readonly to: PeerAddress; readonly deadline: number }
  | { readonly purpose: 'tcpPing'; readonly to: PeerAddress; readonly seqNo: number; readonly deadline: number };

/** A join(addresses) call: one stream per address, answered once all have replied or failed. */
export interface JoinRequest {
  readonly pending: number;
  readonly joined: number;
  readonly errors: readonly { readonly to: PeerAddress; readonly error: string }[];
}

export interface SwimStats {
  readonly probes: number;
  readonly probesFailed: number;
  /** Rounds extended because the target was heard from (extendWhenHeard). */
  readonly probesExtended: number;
  readonly suspicionsStarted: number;
  readonly deadDeclared: number;
  readonly refutations: number;
  readonly packetsSent: number;
  readonly messagesDropped: number;
}

export const ZERO_STATS: SwimStats = Object.freeze({
  probes: 0,
  probesFailed: 0,
  probesExtended: 0,
  suspicionsStarted: 0,
  deadDeclared: 0,
  refutations: 0,
  packetsSent: 0,
  messagesDropped: 0,
});

/**
 * Everything one memberlist node knows, as an immutable value. The reducer (swim-node.ts) never mutates a
 * state it is given: each step copies the collections it may change into a Draft and returns a new state.
 */
export interface SwimState {
  readonly config: SwimConfig;
  readonly self: LocalIdentity;
  readonly members: ReadonlyMap<string, Member>;
  readonly probeOrder: readonly string[];
  readonly probeIndex: number;
  /** The incarnation counter: the next refutation or meta update uses at least this + 1. */
  readonly incarnation: number;
  readonly seqNo: number;
  /** Lifeguard health score, 0..awarenessMaxMultiplier-1. */
  readonly health: number;
  readonly suspicions: ReadonlyMap<string, Suspicion>;
  readonly probe: ProbeRound | undefined;
  /** Keyed by the sequence number of our relayed ping. */
  readonly relays: ReadonlyMap<number, IndirectRelay>;
  readonly memberQueue: BroadcastQueue;
  readonly userQueue: BroadcastQueue;
  readonly streams: ReadonlyMap<number, PendingStream>;
  readonly nextStreamId: number;
  readonly joins: ReadonlyMap<number, JoinRequest>;
  /** The round trip of the last direct ack from each member (ms): tells a lost ping from a slow member. */
  readonly recentRtt: ReadonlyMap<string, number>;
  /** When each member last sent us a packet (SwimConfig.extendWhenHeard; how long a crashed owner was silent). */
  readonly lastHeard: ReadonlyMap<string, number>;
  readonly nextJoinId: number;
  /** leave() was called: alive messages about ourselves are ignored, dead ones are not refuted. */
  readonly leaving: boolean;
  /** A leave() waiting for its broadcast; Infinity without a timeout. */
  readonly leaveDeadline: number | undefined;
  readonly nextProbeAt: number;
  readonly nextGossipAt: number;
  readonly nextPushPullAt: number;
  /** The delegate's user state, sent in every push/pull (memberlist Delegate.LocalState). */
  readonly localUserState: Uint8Array;
  readonly rng: RngState;
  readonly stats: SwimStats;
}
