/**
 * memberlist's messages as plain data (docs/memberlist-wire.md section 1; memberlist net.go). The codec turns them
 * into bytes; the SWIM state machine reads and writes only these types, never bytes.
 *
 * Byte fields (addresses, Meta, Vsn, payloads) are Uint8Array: they are not UTF-8. Node names are strings.
 */

/**
 * Message type codes: the first byte of every message. Append-only: the numbers are the wire protocol
 * (memberlist net.go messageType); never renumber.
 */
export const MessageType = {
  ping: 0,
  indirectPing: 1,
  ack: 2,
  suspect: 3,
  alive: 4,
  dead: 5,
  pushPull: 6,
  compound: 7,
  user: 8,
  compress: 9,
  encrypt: 10,
  nack: 11,
  hasCrc: 12,
  err: 13,
  /** memberlist >= 0.3.0, opt-in; 0.2.2 cannot parse it. */
  hasLabel: 244,
} as const;

/** Node states in push/pull (memberlist state.go NodeStateType). */
export const NodeStateCode = {
  alive: 0,
  suspect: 1,
  dead: 2,
  left: 3,
} as const;
export type NodeStateName = keyof typeof NodeStateCode;

/** pmin, pmax, pcur, dmin, dmax, dcur: exactly VSN_LENGTH bytes (fewer crash Go's aliveNode). */
export const VSN_LENGTH = 6;
/** Protocol versions 1..5, speaking 2: what memberlist 0.2.2 and 0.5.x send (docs/memberlist-wire.md section 6). */
export const DEFAULT_VSN: Readonly<Uint8Array> = Uint8Array.of(1, 5, 2, 0, 0, 0);
/** memberlist config.go: Meta is limited on the local node. */
export const META_MAX_BYTES = 512;

export interface Ping {
  readonly type: 'ping';
  readonly seqNo: number;
  /** The node the sender thinks it is pinging; a receiver with another name ignores the ping. */
  readonly node: string;
  readonly sourceAddr?: Uint8Array;
  readonly sourcePort?: number;
  readonly sourceNode?: string;
}

export interface IndirectPing {
  readonly type: 'indirectPing';
  readonly seqNo: number;
  readonly target: Uint8Array;
  readonly port: number;
  readonly node: string;
  /** Ask the relay to answer with a nack when the target stays silent (protocol >= 4). */
  readonly nack: boolean;
  readonly sourceAddr?: Uint8Array;
  readonly sourcePort?: number;
  readonly sourceNode?: string;
}

export interface Ack {
  readonly type: 'ack';
  readonly seqNo: number;
  /** nil on the wire when absent. */
  readonly payload?: Uint8Array;
}

export interface Nack {
  readonly type: 'nack';
  readonly seqNo: number;
}

export interface ErrorResponse {
  readonly type: 'err';
  readonly error: string;
}

export interface Suspect {
  readonly type: 'suspect';
  readonly incarnation: number;
  readonly node: string;
  readonly from: string;
}

export interface Dead {
  readonly type: 'dead';
  readonly incarnation: number;
  readonly node: string;
  /** Node === from means the node left gracefully. */
  readonly from: string;
}

export interface Alive {
  readonly type: 'alive';
  readonly incarnation: number;
  readonly node: string;
  readonly addr: Uint8Array;
  readonly port: number;
  /** nil on the wire when absent. */
  readonly meta?: Uint8Array;
  readonly vsn: Uint8Array;
}

/** One member as push/pull carries it (memberlist net.go pushNodeState). */
export interface PushNodeState {
  readonly name: string;
  readonly addr: Uint8Array;
  readonly port: number;
  readonly meta?: Uint8Array;
  readonly incarnation: number;
  readonly state: NodeStateName;
  readonly vsn: Uint8Array;
}

/** A full state exchange over TCP: header, every node, then the delegate's user state. */
export interface PushPull {
  readonly type: 'pushPull';
  readonly join: boolean;
  readonly nodes: readonly PushNodeState[];
  readonly userState: Uint8Array;
}

/** A delegate (user) message: raw bytes, `[08][bytes]` over UDP. */
export interface UserMessage {
  readonly type: 'user';
  readonly payload: Uint8Array;
}

/** Every message the SWIM state machine sends or receives (wrappers such as compound are codec business). */
export type GossipMessage = Ping | IndirectPing | Ack | Nack | ErrorResponse | Suspect | Dead | Alive | PushPull | UserMessage;
