import type { GossipMessage } from '../messages';
import type { PeerAddress } from './address';
import type { Member } from './member-table';

/**
 * What the reducer asks its driver to do. The driver encodes (the codec compounds several messages into one
 * packet, adds CRC, compression, encryption), sends, and feeds replies back as events.
 */
export type SwimEffect = SendPacket | OpenStream | ReplyStream | EmitEvent | LogLine;

/** Why a packet goes out (for logs and metrics). */
export type SendReason = 'ping' | 'pingSuspect' | 'ack' | 'indirectPing' | 'relayPing' | 'relayAck' | 'nack' | 'gossip';

/** One UDP packet: the messages in order (the first is the reason, the rest piggybacked broadcasts). */
export interface SendPacket {
  readonly type: 'sendPacket';
  readonly to: PeerAddress;
  readonly messages: readonly GossipMessage[];
  readonly reason: SendReason;
  /** The recipient's pmax when it is a known member: the codec adds the CRC header from 5 on. */
  readonly recipientProtocolMax?: number;
}

export type StreamPurpose = 'join' | 'pushPull' | 'tcpPing';

/**
 * Open a TCP stream, write `message`, read one reply. The driver answers with `streamReply` or `streamFailed`
 * (refused, timed out, bad reply) before `deadline`; the reducer forgets the stream at the deadline anyway.
 */
export interface OpenStream {
  readonly type: 'openStream';
  /** Chosen by the reducer, unique per node; echoed in streamReply / streamFailed. */
  readonly stream: number;
  readonly to: PeerAddress;
  readonly message: GossipMessage;
  readonly deadline: number;
  readonly purpose: StreamPurpose;
}

/** Answer an inbound stream (driver's id) with `message`, or close it without answer when absent. */
export interface ReplyStream {
  readonly type: 'replyStream';
  readonly stream: number;
  readonly message?: GossipMessage;
}

export interface EmitEvent {
  readonly type: 'emit';
  readonly event: SwimOutEvent;
}

/** Events for the public API (memberlist EventDelegate, ConflictDelegate, Delegate). */
export type SwimOutEvent =
  /** A member became alive (new, or back from dead/left). Ourselves included at start, as in memberlist. */
  | { readonly type: 'join'; readonly member: Member }
  /** A member was declared dead or left. */
  | { readonly type: 'leave'; readonly member: Member }
  /** A live member's meta changed. */
  | { readonly type: 'update'; readonly member: Member }
  /** A suspicion of a member became confirmed (k confirmations), or a confirmed one was refuted (confirmed-suspects.ts). */
  | { readonly type: 'suspicion'; readonly member: Member; readonly confirmed: boolean }
  /** Another address claims a known member's name (memberlist NotifyConflict). */
  | {
      readonly type: 'conflict';
      readonly existing: Member;
      readonly other: { readonly name: string; readonly addr: Uint8Array; readonly port: number; readonly meta?: Uint8Array };
    }
  /** A user message (UDP [08] or TCP user stream, or gossiped broadcast). */
  | { readonly type: 'userMessage'; readonly payload: Uint8Array; readonly from: PeerAddress }
  /** The remote user state of a push/pull (memberlist Delegate.MergeRemoteState). */
  | { readonly type: 'remoteState'; readonly userState: Uint8Array; readonly join: boolean; readonly from: PeerAddress }
  /** A join(addresses) finished: how many exchanges succeeded, and why the others failed. */
  | {
      readonly type: 'joinResult';
      readonly request: number;
      readonly joined: number;
      readonly errors: readonly { readonly to: PeerAddress; readonly error: string }[];
    }
  /** A leave(timeout) finished. */
  | { readonly type: 'leaveResult'; readonly outcome: LeaveOutcome };

export type LeaveOutcome =
  /** The leave message went out to the cluster (transmitted its full retransmit count). */
  | 'broadcast'
  /** No other member is alive: nobody to tell. */
  | 'alone'
  /** The timeout passed first (memberlist returns "timeout waiting for leave broadcast"). */
  | 'timeout'
  /** leave() had already been called. */
  | 'alreadyLeft';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** Every decision the reducer logs has one of these reasons (stable: tests and metrics match on them). */
export type LogReason =
  | 'started'
  | 'probeAcked'
  | 'probeIndirect'
  | 'probeExtended'
  | 'probeFailed'
  | 'probeTcpOnly'
  | 'suspect'
  | 'suspectConfirmed'
  | 'suspicionTimeout'
  | 'dead'
  | 'left'
  | 'alive'
  | 'joined'
  | 'refute'
  | 'conflictingAddress'
  | 'addressUpdated'
  | 'badVsn'
  | 'staleIncarnation'
  | 'unknownNode'
  | 'ignoredWhileLeaving'
  | 'pingForOtherNode'
  | 'unexpectedAck'
  | 'unexpectedMessage'
  | 'relayNack'
  | 'reaped'
  | 'joinFailed'
  | 'pushPullFailed'
  | 'pushPullStarted'
  | 'pushPullMerged'
  | 'protocolIncompatible'
  | 'leaving'
  | 'leaveDone'
  | 'metaUpdated'
  | 'streamExpired';

export interface LogLine {
  readonly type: 'log';
  readonly level: LogLevel;
  readonly reason: LogReason;
  readonly message: string;
  readonly fields?: Readonly<Record<string, string | number | boolean>>;
}
