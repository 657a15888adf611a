/**
 * Why a packet, a part of it, or a stream was dropped: a stable string table (append-only; the names appear in
 * metrics and logs). decodePacket and the stream reader never throw; every failure becomes one of these.
 */
import { CodedError } from '../../errors/coded-error';
import type { Drop as GenericDrop } from '../../errors/decoded';

export const DropReason = {
  /** The packet is empty or larger than any datagram (UDP_PACKET_MAX_BYTES). */
  badPacketSize: 'badPacketSize',
  /** Label header malformed (truncated, empty label) or label differs from the configured one. */
  badLabel: 'badLabel',
  /** Encryption is configured but no key opens the packet (or it is too short, or an unknown version). */
  decryptFailed: 'decryptFailed',
  /** Encryption is configured, verification of incoming traffic is on, and the data is plaintext. */
  notEncrypted: 'notEncrypted',
  /** A stream is encrypted but no keyring is configured. */
  unexpectedEncryption: 'unexpectedEncryption',
  /** The CRC header does not match the rest of the packet. */
  badCrc: 'badCrc',
  /** The compound header is cut short (no count byte, or fewer length bytes than parts). */
  badCompound: 'badCompound',
  /** A compound announced more parts than the packet holds; the parts that fit were kept. */
  truncatedCompound: 'truncatedCompound',
  /** compress wrapper: unknown algorithm. */
  badCompression: 'badCompression',
  /** LZW data is malformed (invalid code, no end code). */
  badLzw: 'badLzw',
  /** LZW output would exceed the decompression limit (a bomb, or simply too much). */
  lzwTooLarge: 'lzwTooLarge',
  /** Decompression produced nothing: there is no message type to read. */
  emptyDecompressed: 'emptyDecompressed',
  /** compound or compress nested deeper than PACKET_MAX_NESTING. */
  tooDeep: 'tooDeep',
  /** An empty message (no type byte), e.g. a zero-length compound part. */
  emptyMessage: 'emptyMessage',
  /** A message type code mlb does not know, or one not allowed where it appears (encrypt inside a packet). */
  unknownType: 'unknownType',
  /** The msgpack body is malformed, truncated, or a field has the wrong type or range. */
  badMsgpack: 'badMsgpack',
  /** An alive or push/pull node with a Vsn that is not exactly 6 bytes (Go 0.2.2 would crash on it). */
  badVsn: 'badVsn',
  /** An alive or push/pull node whose protocol range is unusable: pmin 0, pmax 0 or pmin > pmax. */
  badProtocolRange: 'badProtocolRange',
  /** A push/pull node state outside 0..3. */
  badNodeState: 'badNodeState',
  /** Push/pull header announces more nodes or user state than mlb accepts (refused before reading). */
  pushPullTooLarge: 'pushPullTooLarge',
  /** A TCP user message longer than USER_MESSAGE_MAX_BYTES. */
  userMessageTooLarge: 'userMessageTooLarge',
  /** An encrypted stream longer than STREAM_MAX_ENCRYPTED_BYTES, or a plaintext message past STREAM_MAX_MESSAGE_BYTES. */
  streamTooLarge: 'streamTooLarge',
  /** The stream ended in the middle of a message. */
  truncatedStream: 'truncatedStream',
  /** Buffering this stream's message would pass INBOUND_STREAM_BUDGET_BYTES, shared by every inbound stream. */
  streamBudgetExceeded: 'streamBudgetExceeded',
  /** INBOUND_STREAMS_MAX inbound streams were already open: the new connection was closed at once. */
  tooManyStreams: 'tooManyStreams',
  /** The stream did not deliver a whole message within the TCP timeout (memberlist's stream deadline). */
  streamDeadline: 'streamDeadline',
} as const;
export type DropReasonName = keyof typeof DropReason;

/** Every reason, for tests and for metrics that pre-register their label values. */
export const DROP_REASONS: readonly DropReasonName[] = Object.keys(DropReason) as DropReasonName[];

/** One dropped message or packet with its reason and a short human detail (for debug logs, not for matching). */
/** One dropped packet, part or stream, in the shape every decoder uses (errors/decoded.ts). */
export type Drop = GenericDrop<DropReasonName>;

/**
 * A codec error with a stable code. Thrown only by the low-level decoders inside this folder and always caught
 * at the pipeline edge (decodePacket, the stream reader), which turn it into a Drop; encoders throw it for
 * inputs that cannot be put on the wire (a label over 255 bytes, a bad key).
 */
export class CodecError extends CodedError<DropReasonName | EncodeErrorCode> {}

/** Reasons an encoder refuses its input (never seen on receive; thrown as CodecError). */
export const EncodeErrorCode = {
  labelTooLong: 'labelTooLong',
  badKey: 'badKey',
  badMessage: 'badMessage',
  tooManyParts: 'tooManyParts',
  partTooLarge: 'partTooLarge',
} as const;
export type EncodeErrorCode = keyof typeof EncodeErrorCode;

/** What decodeMessage returns instead of a message: a stable reason code plus a detail for debug logs. */
export class DecodeError extends CodecError {
  constructor(
    override readonly code: DropReasonName,
    message: string,
  ) {
    super(code, message);
  }

  toDrop(): Drop {
    return { reason: this.code, detail: this.message };
  }
}
