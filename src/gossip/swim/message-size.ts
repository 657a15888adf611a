import type { GossipMessage } from '../messages';

/**
 * The size of a message as memberlist encodes it: one type byte and a msgpack map keyed by Go field names, old
 * spec, minimal unsigned ints (docs/memberlist-wire.md sections 1 and 2). The broadcast queue packs piggybacked
 * messages by these sizes; it is exact for that encoding and an upper bound for compressed packets. The codec
 * still guards the real budget (a compound that does not fit loses its tail, as in Go).
 */

function strSize(byteLength: number): number {
  if (byteLength < 32) return 1 + byteLength;
  if (byteLength < 0x10000) return 3 + byteLength;
  return 5 + byteLength;
}

function textSize(text: string): number {
  return strSize(utf8Length(text));
}

/**
 * UTF-8 bytes of `text` without encoding it: the broadcast queue sizes every message it queues and takes, and
 * an encoder call allocates a buffer each time (most of a large cluster's gossip cost went there).
 */
function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4; // a surrogate pair: one code point of four bytes
      i++;
    } else bytes += 3; // the rest of the BMP, and a lone surrogate (the encoder writes U+FFFD, three bytes)
  }
  return bytes;
}

function bytesSize(bytes: Uint8Array | undefined): number {
  return bytes === undefined ? 1 : strSize(bytes.length);
}

function uintSize(value: number): number {
  if (value < 0x80) return 1;
  if (value < 0x100) return 2;
  if (value < 0x10000) return 3;
  if (value < 0x100000000) return 5;
  return 9;
}

/** A map entry: the key as a fixstr plus the value. */
function entry(key: string, valueSize: number): number {
  return 1 + key.length + valueSize;
}

function sourceFields(m: { sourceAddr?: Uint8Array; sourcePort?: number; sourceNode?: string }): number {
  let size = 0;
  if (m.sourceAddr && m.sourceAddr.length > 0) size += entry('SourceAddr', bytesSize(m.sourceAddr));
  if (m.sourceNode) size += entry('SourceNode', textSize(m.sourceNode));
  if (m.sourcePort) size += entry('SourcePort', uintSize(m.sourcePort));
  return size;
}

/** Type byte + map header (every memberlist struct has at most 15 keys: a fixmap). */
const HEADER = 2;

export function encodedSize(message: GossipMessage): number {
  switch (message.type) {
    case 'ping':
      return HEADER + entry('Node', textSize(message.node)) + entry('SeqNo', uintSize(message.seqNo)) + sourceFields(message);
    case 'indirectPing':
      return (
        HEADER +
        entry('Nack', 1) +
        entry('Node', textSize(message.node)) +
        entry('Port', uintSize(message.port)) +
        entry('SeqNo', uintSize(message.seqNo)) +
        entry('Target', bytesSize(message.target)) +
        sourceFields(message)
      );
    case 'ack':
      return HEADER + entry('Payload', bytesSize(message.payload)) + entry('SeqNo', uintSize(message.seqNo));
    case 'nack':
      return HEADER + entry('SeqNo', uintSize(message.seqNo));
    case 'err':
      return HEADER + entry('Error', textSize(message.error));
    case 'suspect':
    case 'dead':
      return (
        HEADER +
        entry('From', textSize(message.from)) +
        entry('Incarnation', uintSize(message.incarnation)) +
        entry('Node', textSize(message.node))
      );
    case 'alive':
      return (
        HEADER +
        entry('Addr', bytesSize(message.addr)) +
        entry('Incarnation', uintSize(message.incarnation)) +
        entry('Meta', bytesSize(message.meta)) +
        entry('Node', textSize(message.node)) +
        entry('Port', uintSize(message.port)) +
        entry('Vsn', bytesSize(message.vsn))
      );
    case 'user':
      return 1 + message.payload.length;
    case 'pushPull': {
      // Streams only; counted for completeness (header map, node maps, raw user state).
      let size =
        HEADER -
        1 +
        entry('Join', 1) +
        entry('Nodes', uintSize(message.nodes.length)) +
        entry('UserStateLen', uintSize(message.userState.length));
      for (const n of message.nodes) {
        size +=
          1 +
          entry('Addr', bytesSize(n.addr)) +
          entry('Incarnation', uintSize(n.incarnation)) +
          entry('Meta', bytesSize(n.meta)) +
          entry('Name', textSize(n.name)) +
          entry('Port', uintSize(n.port)) +
          entry('State', 1) +
          entry('Vsn', bytesSize(n.vsn));
      }
      return size + message.userState.length;
    }
  }
}
