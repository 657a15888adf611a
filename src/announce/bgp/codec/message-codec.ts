/**
 * One whole BGP message to and from bytes: the entry points the session uses. decodeMessage never throws; every
 * failure is a BgpDecodeError carrying the NOTIFICATION to send (RFC 4271 section 6). An UPDATE that RFC 7606
 * lets survive comes back ok with `treatAsWithdraw` (its prefixes are withdrawn, the session stays up).
 */
import { BGP_HEADER_BYTES, MessageType, type BgpMessage } from '../bgp-messages';
import { badMessageLength, type BgpDecodeError, type CodecOptions } from './codec-errors';
import { checkHeader } from './message-header';
import { decodeOpenBody, encodeOpen } from './open-codec';
import { decodeNotificationBody, decodeRouteRefreshBody, encodeKeepalive, encodeNotification, encodeRouteRefresh } from './small-messages';
import { decodeUpdateBody, encodeUpdate } from './update-codec';

export type DecodeResult =
  | { readonly ok: true; readonly message: BgpMessage; readonly treatAsWithdraw?: { readonly reason: string } }
  | { readonly ok: false; readonly error: BgpDecodeError };

/** Encodes a message, header included. Throws BgpEncodeError when it would exceed 4096 octets or a field cannot be represented. */
export function encodeMessage(message: BgpMessage, options: CodecOptions): Uint8Array {
  switch (message.type) {
    case 'open':
      return encodeOpen(message);
    case 'update':
      return encodeUpdate(message, options);
    case 'notification':
      return encodeNotification(message);
    case 'keepalive':
      return encodeKeepalive();
    case 'routeRefresh':
      return encodeRouteRefresh(message);
  }
}

/** Decodes exactly one message: `bytes` must be the whole message, no more and no less. */
export function decodeMessage(bytes: Uint8Array, options: CodecOptions): DecodeResult {
  if (bytes.length < BGP_HEADER_BYTES) return { ok: false, error: badMessageLength(bytes.length, 'shorter than the 19-octet header') };
  const checked = checkHeader(bytes);
  if (!checked.ok) return checked;
  const { length, type } = checked.header;
  if (length !== bytes.length) return { ok: false, error: badMessageLength(length, `the message has ${bytes.length} octets`) };
  const body = bytes.subarray(BGP_HEADER_BYTES);
  switch (type) {
    case MessageType.open:
      return decodeOpenBody(body);
    case MessageType.update:
      return decodeUpdateBody(body, options);
    case MessageType.notification:
      return { ok: true, message: decodeNotificationBody(body) };
    case MessageType.keepalive:
      return { ok: true, message: { type: 'keepalive' } };
    default:
      // checkHeader admits only the five known types; the last is ROUTE-REFRESH.
      return decodeRouteRefreshBody(body, bytes);
  }
}
