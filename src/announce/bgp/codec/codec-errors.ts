/**
 * The codec's two error classes. A BgpDecodeError is the NOTIFICATION the session must send before it closes
 * (RFC 4271 section 6: every malformed message maps to an error code, a subcode and the data the RFC names), so a
 * decode failure is never a bare exception. A BgpEncodeError is a caller mistake or a message too big to send.
 */
import { CodedError } from '../../../errors/coded-error';
import {
  BGP_MAX_MESSAGE_BYTES,
  HeaderErrorSubcode,
  NotificationCode,
  OpenErrorSubcode,
  UNSPECIFIC_SUBCODE,
  UpdateErrorSubcode,
  type BgpNotification,
} from '../bgp-messages';

const EMPTY = new Uint8Array(0);

export interface CodecOptions {
  /**
   * Both sides advertised the 4-octet ASN capability (RFC 6793): AS_PATH carries 4-octet ASNs. mlb always offers
   * it, but a peer that does not gets 2-octet AS_PATHs (with AS_TRANS and AS4_PATH, RFC 6793 4.2.2).
   */
  readonly fourOctetAsn: boolean;
}

/** The stable code of a decode error: the name of its NOTIFICATION error code (RFC 4271 4.5). */
export type BgpDecodeErrorCode = keyof typeof NotificationCode;

const NOTIFICATION_NAMES = new Map<number, BgpDecodeErrorCode>(
  Object.entries(NotificationCode).map(([name, value]) => [value, name as BgpDecodeErrorCode]),
);

export class BgpDecodeError extends CodedError<BgpDecodeErrorCode> {
  /** NOTIFICATION data, as RFC 4271 section 6 prescribes for this error (often empty); a copy, never a view of the input. */
  readonly data: Uint8Array;

  constructor(
    /** NOTIFICATION error code (RFC 4271 4.5); `code` is its name. */
    readonly notificationCode: number,
    readonly subcode: number,
    data: Uint8Array,
    /** Human-readable cause for logs; not sent. */
    readonly reason: string,
  ) {
    super(NOTIFICATION_NAMES.get(notificationCode) ?? 'messageHeaderError', `BGP decode error ${notificationCode}/${subcode}: ${reason}`);
    this.data = data.slice();
  }
}

/** Stable string codes for encode failures (they appear in logs). */
export const BgpEncodeErrorCode = {
  /** RFC 4271 4.1: the message would exceed 4096 octets; the caller must split it. */
  tooLarge: 'tooLarge',
  /** A field the wire cannot hold (an IPv6 prefix in the IPv4 NLRI, a 3-octet ASN in a 2-octet field, ...). */
  invalidField: 'invalidField',
} as const;
export type BgpEncodeErrorCode = (typeof BgpEncodeErrorCode)[keyof typeof BgpEncodeErrorCode];

export class BgpEncodeError extends CodedError<BgpEncodeErrorCode> {
  constructor(
    code: BgpEncodeErrorCode,
    readonly reason: string,
  ) {
    super(code, `BGP encode error (${code}): ${reason}`);
  }
}

/** A NOTIFICATION's header (19) + code (1) + subcode (1): the data gets the rest of the 4096 octets. */
const MAX_NOTIFICATION_DATA_BYTES = BGP_MAX_MESSAGE_BYTES - 21;

/**
 * The NOTIFICATION that reports a decode error to the peer (RFC 4271 6.1-6.3). Data that cannot fit (RFC 7313
 * asks for the whole offending message, which may itself be 4096 octets) is cut to fit, so it always encodes.
 */
export function notificationFor(error: BgpDecodeError): BgpNotification {
  return {
    type: 'notification',
    code: error.notificationCode,
    subcode: error.subcode,
    data: error.data.subarray(0, MAX_NOTIFICATION_DATA_BYTES),
  };
}

function u16(value: number): Uint8Array {
  return new Uint8Array([(value >> 8) & 0xff, value & 0xff]);
}

// --- RFC 4271 6.1: message header errors -------------------------------------------------------------------

export function connectionNotSynchronized(): BgpDecodeError {
  return new BgpDecodeError(
    NotificationCode.messageHeaderError,
    HeaderErrorSubcode.connectionNotSynchronized,
    EMPTY,
    'marker is not all ones',
  );
}

/** "The Data field MUST contain the erroneous Length field." */
export function badMessageLength(length: number, why: string): BgpDecodeError {
  return new BgpDecodeError(
    NotificationCode.messageHeaderError,
    HeaderErrorSubcode.badMessageLength,
    u16(length),
    `length ${length}: ${why}`,
  );
}

/** "The Data field MUST contain the erroneous Type field." */
export function badMessageType(type: number): BgpDecodeError {
  return new BgpDecodeError(
    NotificationCode.messageHeaderError,
    HeaderErrorSubcode.badMessageType,
    new Uint8Array([type]),
    `unknown message type ${type}`,
  );
}

// --- RFC 4271 6.2: OPEN message errors ---------------------------------------------------------------------

export function openError(subcode: number, reason: string, data: Uint8Array = EMPTY): BgpDecodeError {
  return new BgpDecodeError(NotificationCode.openMessageError, subcode, data, reason);
}

/** "The Data field is a 2-octet unsigned integer, which indicates the largest locally-supported version number." */
export function unsupportedVersion(version: number, supported: number): BgpDecodeError {
  return openError(OpenErrorSubcode.unsupportedVersionNumber, `version ${version} (only ${supported} is spoken)`, u16(supported));
}

/** RFC 4271 6.2: an optional parameter that is recognized but malformed: subcode 0 (Unspecific). */
export function malformedOpen(reason: string): BgpDecodeError {
  return openError(UNSPECIFIC_SUBCODE, reason);
}

// --- RFC 4271 6.3: UPDATE message errors -------------------------------------------------------------------

export function updateError(subcode: number, reason: string, data: Uint8Array = EMPTY): BgpDecodeError {
  return new BgpDecodeError(NotificationCode.updateMessageError, subcode, data, reason);
}

export function malformedAttributeList(reason: string): BgpDecodeError {
  return updateError(UpdateErrorSubcode.malformedAttributeList, reason);
}

export function invalidNetworkField(reason: string): BgpDecodeError {
  return updateError(UpdateErrorSubcode.invalidNetworkField, reason);
}
