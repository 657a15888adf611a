/**
 * The UDP packet path as pure functions (memberlist net.go sendMsg, rawSendMsgPacket, ingestPacket,
 * handleCommand; label.go).
 *
 * Sending, innermost first:
 *   message | compound(messages)                        [07][n][n x u16][bodies]
 *   -> compress wrapper, only if it is smaller          [09][{Algo:0, Buf}]
 *   -> CRC header, when the receiver speaks >= 5        [0c][crc32 BE][...]
 *   -> encryption with the primary key, AAD = label     [vsn][nonce][ciphertext+tag]
 *   -> label header, when a label is configured          [f4][len][label][...]
 * Receiving reverses it; compound and compress nest (up to PACKET_MAX_NESTING). decodePacket never throws:
 * every failure becomes a Drop with a reason from drop-reasons.ts, and the good parts of a packet still count.
 */
import { type GossipMessage, MessageType } from '../messages';
import { decodeCompound, encodeCompound } from './compound';
import { decompressValue, encodeCompressed } from './compression';
import { addCrc, checkCrc, hasCrcHeader } from './crc';
import { CodecError, DecodeError, type Drop } from './drop-reasons';
import { type EncryptionVersion, decryptPayload, ENCRYPTION_OVERHEAD, encryptPayload, type NonceSource, randomNonce } from './encryption';
import type { Keyring } from './keyring';
import { addLabel, labelBytes, labelOverhead, sameBytes, splitLabel } from './label';
import { PACKET_MAX_DECOMPRESSED_BYTES, PACKET_MAX_NESTING, UDP_PACKET_MAX_BYTES } from './limits';
import { decodePacketMessage, encodeMessage, readComplete } from './message-codec';

export interface PacketEncodeOptions {
  /** memberlist EnableCompression (default true in Go and MetalLB): used only when it makes the packet smaller. */
  readonly compress?: boolean;
  /** Add the CRC header: Go does so when it knows the receiver and its pmax >= 5. */
  readonly crc?: boolean;
  /** Encrypt with the primary key. */
  readonly keyring?: Keyring;
  /** 1 (the default, protocol >= 2) or 0 (protocol 1, PKCS7-padded). */
  readonly encryptionVersion?: EncryptionVersion;
  readonly nonce?: NonceSource;
  /** memberlist >= 0.3.0 Label; never set it in a cluster with 0.2.2 peers or MetalLB. */
  readonly label?: string;
  /** memberlist UDPBufferSize. */
  readonly udpBufferSize?: number;
}

export interface PacketDecodeOptions {
  readonly keyring?: Keyring;
  /** memberlist GossipVerifyIncoming (default true): with a keyring, undecryptable packets are dropped. */
  readonly verifyIncoming?: boolean;
  readonly label?: string;
  /** Decompressed bytes allowed for the whole packet, all compress wrappers together. */
  readonly maxDecompressedBytes?: number;
}

export interface DecodedPacket {
  readonly messages: GossipMessage[];
  readonly drops: Drop[];
  /** Bytes produced by decompression for this packet (at most maxDecompressedBytes): a metric, and a test hook. */
  readonly decompressedBytes: number;
}

/** Message types memberlist handles from a packet (net.go handleCommand); the rest are dropped. */
const PACKET_MESSAGE_TYPES: ReadonlySet<number> = new Set([
  MessageType.ping,
  MessageType.indirectPing,
  MessageType.ack,
  MessageType.suspect,
  MessageType.alive,
  MessageType.dead,
  MessageType.user,
  MessageType.nack,
]);

// ------------------------------------------------------------------------------------------ sending

/**
 * Bytes the pipeline adds around a packet's messages: the label header and the encryption overhead (memberlist
 * net.go sendMsg subtracts the same from UDPBufferSize). The SWIM reducer packs broadcasts into what is left
 * (swim/draft.ts, SwimConfig.packetOverhead). Like Go, it leaves out the CRC header, and the compound length of the
 * first message, so a full packet can be UDPBufferSize + 2 bytes (the receive buffer is 64 KiB: nothing breaks)
 * and both pack the same broadcasts.
 */
export function packetOverhead(opts: PacketEncodeOptions): number {
  const label = labelOverhead(labelBytes(opts.label));
  return opts.keyring ? label + ENCRYPTION_OVERHEAD[opts.encryptionVersion ?? 1] : label;
}

/**
 * One packet for the given messages (already chosen to fit; see packetOverhead). Messages may be given
 * pre-encoded (memberlist queues broadcasts as bytes). Throws CodecError for unsendable input.
 */
export function encodePacket(messages: readonly (GossipMessage | Uint8Array)[], opts: PacketEncodeOptions = {}): Uint8Array {
  if (messages.length === 0) throw new CodecError('badMessage', 'a packet needs at least one message');
  const parts = messages.map((m) => (m instanceof Uint8Array ? m : encodedOnce(m)));
  // A lone message goes out as its own bytes: a copy, so the cached encoding never leaves this module.
  let msg = parts.length === 1 ? (parts[0] as Uint8Array).slice() : encodeCompound(parts);
  if (opts.compress) {
    const c = encodeCompressed(msg);
    if (c.length < msg.length) msg = c;
  }
  if (opts.crc) msg = addCrc(msg);
  const label = labelBytes(opts.label);
  if (opts.keyring) msg = encryptPayload(opts.encryptionVersion ?? 1, opts.keyring.primary, msg, label, (opts.nonce ?? randomNonce)());
  return addLabel(msg, label);
}

/**
 * Each message's encoding, kept while the message object lives: messages are immutable values, and a broadcast
 * goes out retransmitLimit times (12 at a thousand members), the same object each time (memberlist keeps its
 * broadcasts encoded for the same reason).
 */
const ENCODED = new WeakMap<GossipMessage, Uint8Array>();

/** The messages that are broadcast (sent again and again); a ping or an ack is sent once and not worth keeping. */
const BROADCAST_TYPES: ReadonlySet<GossipMessage['type']> = new Set(['alive', 'suspect', 'dead', 'user']);

function encodedOnce(message: GossipMessage): Uint8Array {
  if (!BROADCAST_TYPES.has(message.type)) return encodeMessage(message);
  let bytes = ENCODED.get(message);
  if (bytes === undefined) {
    bytes = encodeMessage(message);
    ENCODED.set(message, bytes);
  }
  return bytes;
}

// ------------------------------------------------------------------------------------------ receiving

class PacketDecoder {
  readonly messages: GossipMessage[] = [];
  readonly drops: Drop[] = [];
  budget: number;
  decompressed = 0;
  constructor(maxDecompressed: number) {
    this.budget = maxDecompressed;
  }

  drop(e: unknown): void {
    if (e instanceof DecodeError) this.drops.push(e.toDrop());
    // A configured label over 255 bytes cannot match any packet's label.
    else if (e instanceof CodecError) this.drops.push({ reason: e.code === 'labelTooLong' ? 'badLabel' : 'badMsgpack', detail: e.message });
    else this.drops.push({ reason: 'badMsgpack', detail: `unexpected: ${String(e)}` });
  }

  /** memberlist handleCommand, recursive over compound and compress. */
  dispatch(buf: Uint8Array, depth: number): void {
    try {
      if (buf.length === 0) throw new DecodeError('emptyMessage', 'empty message');
      const type = buf[0] as number;
      if (type === MessageType.compound || type === MessageType.compress) {
        if (depth >= PACKET_MAX_NESTING) throw new DecodeError('tooDeep', `wrappers nested deeper than ${PACKET_MAX_NESTING}`);
        if (type === MessageType.compound) {
          const { parts, truncated } = decodeCompound(buf.subarray(1));
          if (truncated > 0)
            this.drops.push({ reason: 'truncatedCompound', detail: `${truncated} of ${parts.length + truncated} parts cut off` });
          for (const p of parts) this.dispatch(p, depth + 1);
        } else {
          const out = decompressValue(readComplete(buf, 1, 'compress').value, this.budget);
          this.budget -= out.length;
          this.decompressed += out.length;
          this.dispatch(out, depth + 1);
        }
        return;
      }
      if (!PACKET_MESSAGE_TYPES.has(type)) throw new DecodeError('unknownType', `message type ${type} is not handled in a packet`);
      this.messages.push(decodePacketMessage(buf, this.drops));
    } catch (e) {
      this.drop(e);
    }
  }
}

/** Decodes one received datagram. Never throws. */
export function decodePacket(packet: Uint8Array, opts: PacketDecodeOptions = {}): DecodedPacket {
  const d = new PacketDecoder(opts.maxDecompressedBytes ?? PACKET_MAX_DECOMPRESSED_BYTES);
  try {
    if (packet.length === 0 || packet.length > UDP_PACKET_MAX_BYTES) {
      throw new DecodeError('badPacketSize', `packet of ${packet.length} bytes`);
    }
    const want = labelBytes(opts.label);
    const split = splitLabel(packet, true);
    if (split.kind === 'incomplete') throw new DecodeError('badLabel', 'label header truncated');
    const got = split.kind === 'label' ? split.label : new Uint8Array(0);
    if (!sameBytes(got, want)) throw new DecodeError('badLabel', 'packet label differs from the configured label');
    let buf = split.rest;
    if (opts.keyring) {
      try {
        buf = decryptPayload(opts.keyring, buf, want);
      } catch (e) {
        // GossipVerifyIncoming off (a rolling key introduction): an undecryptable packet is taken as plaintext.
        if (opts.verifyIncoming ?? true) throw e;
      }
    }
    if (hasCrcHeader(buf)) {
      const body = checkCrc(buf);
      if (body === undefined) throw new DecodeError('badCrc', 'CRC mismatch');
      buf = body;
    }
    d.dispatch(buf, 0);
  } catch (e) {
    d.drop(e);
  }
  return { messages: d.messages, drops: d.drops, decompressedBytes: d.decompressed };
}
