/**
 * The three small messages: NOTIFICATION (RFC 4271 4.5), KEEPALIVE (4.4) and ROUTE-REFRESH (RFC 2918 3, with
 * RFC 7313's subtype in the octet RFC 2918 reserved).
 *
 *   NOTIFICATION                                   ROUTE-REFRESH
 *   +---------------+---------------+-----------+   +-------------------------------+---------------+---------------+
 *   | Error code    | Error subcode | Data...   |   |              AFI              |   Subtype     |     SAFI      |
 *   +---------------+---------------+-----------+   +-------------------------------+---------------+---------------+
 *
 * A KEEPALIVE is the header alone (exactly 19 octets, checked with the header).
 */
import {
  MessageType,
  NotificationCode,
  RouteRefreshErrorSubcode,
  RouteRefreshSubtype,
  type BgpNotification,
  type BgpRouteRefresh,
} from '../bgp-messages';
import { ByteWriter, readUint } from './byte-writer';
import { BgpDecodeError, BgpEncodeError, BgpEncodeErrorCode } from './codec-errors';
import { finishMessage, writeHeader } from './message-header';

/** AFI (2) + subtype (1) + SAFI (1). */
const ROUTE_REFRESH_BODY_BYTES = 4;

/** Any code and subcode are accepted: a NOTIFICATION is never answered with another (RFC 4271 6.4). */
export function decodeNotificationBody(body: Uint8Array): BgpNotification {
  return { type: 'notification', code: body[0] as number, subcode: body[1] as number, data: body.slice(2) };
}

export type RouteRefreshDecoded =
  { readonly ok: true; readonly message: BgpRouteRefresh } | { readonly ok: false; readonly error: BgpDecodeError };

/** `whole` is the entire message: RFC 7313 section 5 puts it in the error's Data field. */
export function decodeRouteRefreshBody(body: Uint8Array, whole: Uint8Array): RouteRefreshDecoded {
  const afi = readUint(body, 0, 2);
  const subtype = body[2] as number;
  const safi = body[3] as number;
  // RFC 7313 section 5: a BoRR/EoRR whose body is not 4 octets -> ROUTE-REFRESH Message Error / Invalid Message
  // Length. A plain request may carry ORFs after the 4 octets (RFC 5291), which mlb does not use: ignored.
  const isMarker = subtype === RouteRefreshSubtype.beginningOfRouteRefresh || subtype === RouteRefreshSubtype.endOfRouteRefresh;
  if (isMarker && body.length !== ROUTE_REFRESH_BODY_BYTES) {
    return {
      ok: false,
      error: new BgpDecodeError(
        NotificationCode.routeRefreshMessageError,
        RouteRefreshErrorSubcode.invalidMessageLength,
        whole.slice(),
        `ROUTE-REFRESH subtype ${subtype} with ${body.length} octets`,
      ),
    };
  }
  const message: BgpRouteRefresh =
    subtype === RouteRefreshSubtype.normal ? { type: 'routeRefresh', afi, safi } : { type: 'routeRefresh', afi, safi, subtype };
  return { ok: true, message };
}

function byte(value: number, what: string): number {
  if (!Number.isInteger(value) || value < 0 || value > 0xff)
    throw new BgpEncodeError(BgpEncodeErrorCode.invalidField, `${what} ${value} is outside 0..255`);
  return value;
}

export function encodeNotification(message: BgpNotification): Uint8Array {
  const writer = new ByteWriter();
  writeHeader(writer, MessageType.notification);
  writer.u8(byte(message.code, 'error code')).u8(byte(message.subcode, 'error subcode')).bytes(message.data);
  return finishMessage(writer);
}

export function encodeKeepalive(): Uint8Array {
  const writer = new ByteWriter();
  writeHeader(writer, MessageType.keepalive);
  return finishMessage(writer);
}

export function encodeRouteRefresh(message: BgpRouteRefresh): Uint8Array {
  if (!Number.isInteger(message.afi) || message.afi < 0 || message.afi > 0xffff) {
    throw new BgpEncodeError(BgpEncodeErrorCode.invalidField, `AFI ${message.afi} is outside 0..65535`);
  }
  const writer = new ByteWriter();
  writeHeader(writer, MessageType.routeRefresh);
  writer
    .u16(message.afi)
    .u8(byte(message.subtype ?? RouteRefreshSubtype.normal, 'subtype'))
    .u8(byte(message.safi, 'SAFI'));
  return finishMessage(writer);
}
