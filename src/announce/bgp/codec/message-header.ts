/**
 * The BGP message header (RFC 4271 4.1) and its checks (RFC 4271 6.1), shared by the stream framer and the
 * whole-message decoder so both reject exactly the same headers with exactly the same NOTIFICATION.
 *
 *    0                   1                   2                   3
 *    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |                                                               |
 *   +                      Marker (16 octets of 0xff)               +
 *   |                                                               |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |          Length               |      Type     |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 * Length counts the whole message, header included: 19..4096.
 */
import { BGP_HEADER_BYTES, BGP_MAX_MESSAGE_BYTES, MessageType } from '../bgp-messages';
import {
  badMessageLength,
  badMessageType,
  BgpEncodeError,
  BgpEncodeErrorCode,
  connectionNotSynchronized,
  type BgpDecodeError,
} from './codec-errors';
import type { ByteWriter } from './byte-writer';

const MARKER_BYTES = 16;
const MARKER_OCTET = 0xff;
const OFFSET_LENGTH = 16;
const OFFSET_TYPE = 18;

/** RFC 4271 6.1 per-type minimum lengths (4.2: OPEN 29, 4.3: UPDATE 23, 4.5: NOTIFICATION 21), RFC 2918 3: 23. */
const MIN_MESSAGE_BYTES: Readonly<Record<number, number>> = {
  [MessageType.open]: 29,
  [MessageType.update]: 23,
  [MessageType.notification]: 21,
  [MessageType.keepalive]: BGP_HEADER_BYTES,
  [MessageType.routeRefresh]: 23,
};

export interface MessageHeader {
  readonly length: number;
  readonly type: number;
}

export type HeaderChecked = { readonly ok: true; readonly header: MessageHeader } | { readonly ok: false; readonly error: BgpDecodeError };

/** Checks the first 19 octets (the caller guarantees they are there) in RFC 4271 6.1's order. */
export function checkHeader(bytes: Uint8Array): HeaderChecked {
  for (let i = 0; i < MARKER_BYTES; i++) {
    if (bytes[i] !== MARKER_OCTET) return { ok: false, error: connectionNotSynchronized() };
  }
  const length = ((bytes[OFFSET_LENGTH] as number) << 8) | (bytes[OFFSET_LENGTH + 1] as number);
  const type = bytes[OFFSET_TYPE] as number;
  if (length < BGP_HEADER_BYTES || length > BGP_MAX_MESSAGE_BYTES) {
    return { ok: false, error: badMessageLength(length, `outside ${BGP_HEADER_BYTES}..${BGP_MAX_MESSAGE_BYTES}`) };
  }
  const minimum = MIN_MESSAGE_BYTES[type];
  if (minimum === undefined) return { ok: false, error: badMessageType(type) };
  if (length < minimum) return { ok: false, error: badMessageLength(length, `below the ${minimum} octets of message type ${type}`) };
  // RFC 4271 6.1: "if the Length field of a KEEPALIVE message is not equal to 19".
  if (type === MessageType.keepalive && length !== BGP_HEADER_BYTES) {
    return { ok: false, error: badMessageLength(length, 'a KEEPALIVE is exactly 19 octets') };
  }
  return { ok: true, header: { length, type } };
}

/** Writes marker, a placeholder length and the type; returns nothing (the header always starts at 0). */
export function writeHeader(writer: ByteWriter, type: number): void {
  for (let i = 0; i < MARKER_BYTES; i++) writer.u8(MARKER_OCTET);
  writer.u16(0);
  writer.u8(type);
}

/** Patches the length into a message started with writeHeader, refusing anything over 4096 octets. */
export function finishMessage(writer: ByteWriter): Uint8Array {
  if (writer.length > BGP_MAX_MESSAGE_BYTES) {
    throw new BgpEncodeError(BgpEncodeErrorCode.tooLarge, `message of ${writer.length} octets exceeds ${BGP_MAX_MESSAGE_BYTES}`);
  }
  writer.patchU16(OFFSET_LENGTH, writer.length);
  return writer.finish();
}
