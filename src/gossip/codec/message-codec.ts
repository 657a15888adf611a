/**
 * One memberlist message <-> bytes: a type byte, then one msgpack map (memberlist net.go encode/decode).
 *
 *   +------+--------------------------------------------+
 *   | type | msgpack map, Go field names, keys sorted    |   ping 0, indirectPing 1, ack 2, suspect 3,
 *   +------+--------------------------------------------+   alive 4, dead 5, nack 11, err 13
 *   | 0x08 | raw user bytes (UDP)                        |
 *   | 0x08 | {UserMsgLen} | raw user bytes (TCP)          |
 *   | 0x06 | {Join,Nodes,UserStateLen} | Nodes x {Addr,Incarnation,Meta,Name,Port,State,Vsn} | user state |
 *   +------+--------------------------------------------+
 *
 * Wrappers (compound 7, compress 9, encrypt 10, hasCrc 12, hasLabel 244) belong to the packet pipeline and the
 * stream reader/writer. Receivers check what Go would crash on (a Vsn that is not 6 bytes) and what Go ignores
 * (an alive with pmin 0, pmax 0 or pmin > pmax): such a message is dropped with its reason and changes nothing.
 */
import {
  type Ack,
  type Alive,
  type Dead,
  type ErrorResponse,
  type GossipMessage,
  type IndirectPing,
  MessageType,
  type Nack,
  NodeStateCode,
  type NodeStateName,
  type Ping,
  type PushNodeState,
  type PushPull,
  type Suspect,
  VSN_LENGTH,
} from '../messages';
import { CodecError, DecodeError, type Drop } from './drop-reasons';
import { PUSH_PULL_MAX_NODES, USER_MESSAGE_MAX_BYTES, USER_STATE_MAX_BYTES } from './limits';
import { type FieldValue, MsgpackWriter } from './msgpack-writer';
import { MsgpackIncomplete, type MsgValue, readValue } from './msgpack-reader';
import { StructFields, U16_MAX, U32_MAX, U8_MAX } from './struct-fields';

// ------------------------------------------------------------------------------------------ encoding

const u = (v: number): FieldValue => ({ uint: v });
const s = (v: string): FieldValue => ({ str: v });
const b = (v: Uint8Array | undefined): FieldValue => ({ bytes: v });

function checkVsn(vsn: Uint8Array, node: string): void {
  // Go 0.2.2 and 0.5.1 index Vsn[0..5] unchecked (state.go aliveNode): never put a short one on the wire.
  if (vsn.length !== VSN_LENGTH) throw new CodecError('badMessage', `Vsn of ${node} has ${vsn.length} bytes, not ${VSN_LENGTH}`);
}

/** The Source* fields are omitempty in Go (net.go ping): written only when set. */
function sourceFields(m: Ping | IndirectPing): Record<string, FieldValue> {
  const out: Record<string, FieldValue> = {};
  if (m.sourceAddr !== undefined && m.sourceAddr.length > 0) out.SourceAddr = b(m.sourceAddr);
  if (m.sourcePort !== undefined && m.sourcePort !== 0) out.SourcePort = u(m.sourcePort);
  if (m.sourceNode !== undefined && m.sourceNode !== '') out.SourceNode = s(m.sourceNode);
  return out;
}

function nodeStateFields(n: PushNodeState): Record<string, FieldValue> {
  checkVsn(n.vsn, n.name);
  return {
    Addr: b(n.addr),
    Incarnation: u(n.incarnation),
    Meta: b(n.meta),
    Name: s(n.name),
    Port: u(n.port),
    State: u(NodeStateCode[n.state]),
    Vsn: b(n.vsn),
  };
}

function writeBody(w: MsgpackWriter, m: GossipMessage, stream: boolean): void {
  w.byte(MessageType[m.type]);
  switch (m.type) {
    case 'ping':
      w.struct({ Node: s(m.node), SeqNo: u(m.seqNo), ...sourceFields(m) });
      return;
    case 'indirectPing':
      w.struct({ Nack: { bool: m.nack }, Node: s(m.node), Port: u(m.port), SeqNo: u(m.seqNo), Target: b(m.target), ...sourceFields(m) });
      return;
    case 'ack':
      w.struct({ Payload: b(m.payload), SeqNo: u(m.seqNo) });
      return;
    case 'nack':
      w.struct({ SeqNo: u(m.seqNo) });
      return;
    case 'err':
      w.struct({ Error: s(m.error) });
      return;
    case 'suspect':
    case 'dead':
      w.struct({ From: s(m.from), Incarnation: u(m.incarnation), Node: s(m.node) });
      return;
    case 'alive':
      checkVsn(m.vsn, m.node);
      w.struct({ Addr: b(m.addr), Incarnation: u(m.incarnation), Meta: b(m.meta), Node: s(m.node), Port: u(m.port), Vsn: b(m.vsn) });
      return;
    case 'pushPull':
      // memberlist net.go sendLocalState: header, every node state, then the user state bytes.
      w.struct({ Join: { bool: m.join }, Nodes: { int: m.nodes.length }, UserStateLen: { int: m.userState.length } });
      for (const n of m.nodes) w.struct(nodeStateFields(n));
      w.raw(m.userState);
      return;
    case 'user':
      // UDP: the bytes follow the type directly (net.go SendBestEffort); TCP: a header first (sendUserMsg).
      if (stream) w.struct({ UserMsgLen: { int: m.payload.length } });
      w.raw(m.payload);
      return;
  }
}

/** A message as one packet carries it (user messages without header). Throws CodecError on unsendable input. */
export function encodeMessage(m: GossipMessage): Uint8Array {
  const w = new MsgpackWriter(m.type === 'pushPull' ? 1024 : 128);
  writeBody(w, m, false);
  return w.bytes();
}

/** A message as a stream carries it before compression/encryption (user messages with their header). */
export function encodeStreamMessage(m: GossipMessage): Uint8Array {
  const w = new MsgpackWriter(m.type === 'pushPull' ? 1024 : 128);
  writeBody(w, m, true);
  return w.bytes();
}

// ------------------------------------------------------------------------------------------ decoding

function vsnOf(f: StructFields, what: string): Uint8Array {
  const vsn = f.bytes('Vsn');
  if (vsn === undefined || vsn.length !== VSN_LENGTH) {
    throw new DecodeError('badVsn', `${what}: Vsn has ${vsn?.length ?? 0} bytes, not ${VSN_LENGTH}`);
  }
  return vsn;
}

/** memberlist state.go aliveNode ignores these; so does mlb, before the state machine sees them. */
function protocolRangeProblem(vsn: Uint8Array): string | undefined {
  const pmin = vsn[0] as number;
  const pmax = vsn[1] as number;
  if (pmin === 0 || pmax === 0 || pmin > pmax) return `protocol range ${pmin}..${pmax} is unusable`;
  return undefined;
}

function decodePing(v: MsgValue): Ping {
  const f = new StructFields(v, 'ping');
  const m: { -readonly [K in keyof Ping]: Ping[K] } = { type: 'ping', seqNo: f.uint('SeqNo', U32_MAX), node: f.text('Node') };
  addSource(m, f);
  return m;
}

function addSource(m: { sourceAddr?: Uint8Array; sourcePort?: number; sourceNode?: string }, f: StructFields): void {
  const addr = f.bytes('SourceAddr');
  const port = f.uint('SourcePort', U16_MAX);
  const node = f.text('SourceNode');
  if (addr !== undefined && addr.length > 0) m.sourceAddr = addr;
  if (port !== 0) m.sourcePort = port;
  if (node !== '') m.sourceNode = node;
}

function decodeIndirectPing(v: MsgValue): IndirectPing {
  const f = new StructFields(v, 'indirectPing');
  const m: { -readonly [K in keyof IndirectPing]: IndirectPing[K] } = {
    type: 'indirectPing',
    seqNo: f.uint('SeqNo', U32_MAX),
    target: f.bytes('Target') ?? new Uint8Array(0),
    port: f.uint('Port', U16_MAX),
    node: f.text('Node'),
    nack: f.bool('Nack'),
  };
  addSource(m, f);
  return m;
}

function decodeAck(v: MsgValue): Ack {
  const f = new StructFields(v, 'ack');
  const payload = f.bytes('Payload');
  return payload === undefined
    ? { type: 'ack', seqNo: f.uint('SeqNo', U32_MAX) }
    : { type: 'ack', seqNo: f.uint('SeqNo', U32_MAX), payload };
}

function decodeNack(v: MsgValue): Nack {
  return { type: 'nack', seqNo: new StructFields(v, 'nack').uint('SeqNo', U32_MAX) };
}

function decodeErr(v: MsgValue): ErrorResponse {
  return { type: 'err', error: new StructFields(v, 'err').text('Error') };
}

function decodeSuspectOrDead<T extends 'suspect' | 'dead'>(type: T, v: MsgValue): Suspect | Dead {
  const f = new StructFields(v, type);
  return { type, incarnation: f.uint('Incarnation', U32_MAX), node: f.text('Node'), from: f.text('From') };
}

function decodeAlive(v: MsgValue): Alive {
  const f = new StructFields(v, 'alive');
  const node = f.text('Node');
  const vsn = vsnOf(f, `alive ${node}`);
  const problem = protocolRangeProblem(vsn);
  if (problem) throw new DecodeError('badProtocolRange', `alive ${node}: ${problem}`);
  const meta = f.bytes('Meta');
  const base = {
    type: 'alive' as const,
    incarnation: f.uint('Incarnation', U32_MAX),
    node,
    addr: f.bytes('Addr') ?? new Uint8Array(0),
    port: f.uint('Port', U16_MAX),
  };
  return meta === undefined ? { ...base, vsn } : { ...base, meta, vsn };
}

export interface PushPullHeader {
  readonly join: boolean;
  readonly nodes: number;
  readonly userStateLen: number;
}

/** The header is checked before anything else is read: oversize push/pull is refused, never buffered. */
export function decodePushPullHeader(v: MsgValue): PushPullHeader {
  const f = new StructFields(v, 'pushPullHeader');
  const nodes = f.int('Nodes');
  // Go treats UserStateLen <= 0 as "no user state" (net.go readRemoteState).
  const userStateLen = Math.max(0, f.int('UserStateLen'));
  if (nodes < 0) throw new DecodeError('badMsgpack', `pushPullHeader.Nodes is negative (${nodes})`);
  if (nodes > PUSH_PULL_MAX_NODES) throw new DecodeError('pushPullTooLarge', `push/pull of ${nodes} nodes (limit ${PUSH_PULL_MAX_NODES})`);
  if (userStateLen > USER_STATE_MAX_BYTES) {
    throw new DecodeError('pushPullTooLarge', `push/pull user state of ${userStateLen} bytes (limit ${USER_STATE_MAX_BYTES})`);
  }
  return { join: f.bool('Join'), nodes, userStateLen };
}

const STATE_NAMES = Object.fromEntries(Object.entries(NodeStateCode).map(([k, v]) => [v, k])) as Record<number, NodeStateName>;

/**
 * One pushNodeState. A wrong-length Vsn throws (Go would crash or refuse the whole merge); a node with an
 * unknown state or an unusable protocol range returns a Drop instead: Go's mergeState skips just that node.
 */
export function decodePushNodeState(v: MsgValue): PushNodeState | Drop {
  const f = new StructFields(v, 'pushNodeState');
  const name = f.text('Name');
  const vsn = vsnOf(f, `push/pull node ${name}`);
  const code = f.uint('State', U8_MAX);
  const state = STATE_NAMES[code];
  if (state === undefined) return { reason: 'badNodeState', detail: `push/pull node ${name}: state ${code}` };
  const problem = protocolRangeProblem(vsn);
  if (state === 'alive' && problem) return { reason: 'badProtocolRange', detail: `push/pull node ${name}: ${problem}` };
  const meta = f.bytes('Meta');
  const base = {
    name,
    addr: f.bytes('Addr') ?? new Uint8Array(0),
    port: f.uint('Port', U16_MAX),
    incarnation: f.uint('Incarnation', U32_MAX),
    state,
    vsn,
  };
  return meta === undefined ? base : { ...base, meta };
}

export function isDrop(x: object): x is Drop {
  return 'reason' in x;
}

export function decodeUserMsgHeader(v: MsgValue): number {
  const len = Math.max(0, new StructFields(v, 'userMsgHeader').int('UserMsgLen'));
  if (len > USER_MESSAGE_MAX_BYTES)
    throw new DecodeError('userMessageTooLarge', `user message of ${len} bytes (limit ${USER_MESSAGE_MAX_BYTES})`);
  return len;
}

/** A msgpack map body of a fixed-shape message type (everything but pushPull and user). */
export function decodeSimpleBody(type: number, v: MsgValue): GossipMessage | undefined {
  switch (type) {
    case MessageType.ping:
      return decodePing(v);
    case MessageType.indirectPing:
      return decodeIndirectPing(v);
    case MessageType.ack:
      return decodeAck(v);
    case MessageType.nack:
      return decodeNack(v);
    case MessageType.err:
      return decodeErr(v);
    case MessageType.suspect:
      return decodeSuspectOrDead('suspect', v);
    case MessageType.dead:
      return decodeSuspectOrDead('dead', v);
    case MessageType.alive:
      return decodeAlive(v);
    default:
      return undefined;
  }
}

/** Reads one msgpack value of a complete buffer: running short is malformed here (no more bytes will come). */
export function readComplete(buf: Uint8Array, offset: number, what: string): { value: MsgValue; end: number } {
  try {
    return readValue(buf, offset);
  } catch (e) {
    if (e instanceof MsgpackIncomplete)
      throw new DecodeError('badMsgpack', `${what}: truncated msgpack (needs ${e.need} bytes, has ${buf.length})`);
    throw e;
  }
}

function decodePushPullBody(buf: Uint8Array, drops: Drop[] | undefined): PushPull {
  let { value, end } = readComplete(buf, 1, 'pushPullHeader');
  const header = decodePushPullHeader(value);
  const nodes: PushNodeState[] = [];
  for (let i = 0; i < header.nodes; i++) {
    ({ value, end } = readComplete(buf, end, 'pushNodeState'));
    const n = decodePushNodeState(value);
    if (isDrop(n)) drops?.push(n);
    else nodes.push(n);
  }
  if (buf.length - end < header.userStateLen) {
    throw new DecodeError('badMsgpack', `push/pull user state: ${buf.length - end} of ${header.userStateLen} bytes`);
  }
  return { type: 'pushPull', join: header.join, nodes, userState: buf.slice(end, end + header.userStateLen) };
}

function decodeAny(buf: Uint8Array, stream: boolean, drops?: Drop[]): GossipMessage {
  if (buf.length === 0) throw new DecodeError('emptyMessage', 'no message type byte');
  const type = buf[0] as number;
  if (type === MessageType.pushPull) return decodePushPullBody(buf, drops);
  if (type === MessageType.user) {
    if (!stream) return { type: 'user', payload: buf.slice(1) };
    const { value, end } = readComplete(buf, 1, 'userMsgHeader');
    const len = decodeUserMsgHeader(value);
    if (buf.length - end < len) throw new DecodeError('badMsgpack', `user message: ${buf.length - end} of ${len} bytes`);
    return { type: 'user', payload: buf.slice(end, end + len) };
  }
  // Go decodes from a reader and ignores whatever follows the value (util.go decode).
  const m = decodeSimpleBody(type, readComplete(buf, 1, `message type ${type}`).value);
  if (m === undefined) throw new DecodeError('unknownType', `message type ${type} is not a message`);
  return m;
}

function catching(f: () => GossipMessage): GossipMessage | DecodeError {
  try {
    return f();
  } catch (e) {
    if (e instanceof DecodeError) return e;
    if (e instanceof CodecError) return new DecodeError('badMsgpack', e.message);
    throw e;
  }
}

/**
 * Decodes one message in packet form. Push/pull nodes that Go would skip are left out silently here; the
 * stream reader reports them as drops.
 */
export function decodeMessage(buf: Uint8Array): GossipMessage | DecodeError {
  return catching(() => decodeAny(buf, false));
}

/** Decodes one complete stream message (after unwrapping): user messages carry their header. */
export function decodeStreamMessage(buf: Uint8Array, drops?: Drop[]): GossipMessage | DecodeError {
  return catching(() => decodeAny(buf, true, drops));
}

/** Packet-path decoding that reports per-node drops and throws DecodeError (the pipeline catches it). */
export function decodePacketMessage(buf: Uint8Array, drops: Drop[]): GossipMessage {
  return decodeAny(buf, false, drops);
}
