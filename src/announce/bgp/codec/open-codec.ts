/**
 * The OPEN message (RFC 4271 4.2) and its checks (RFC 4271 6.2, RFC 6286, RFC 7607, RFC 9072).
 *
 *    0                   1                   2                   3
 *    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *   +-+-+-+-+-+-+-+-+
 *   |    Version    |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |     My Autonomous System      |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |           Hold Time           |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |                         BGP Identifier                        |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   | Opt Parm Len  |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |             Optional Parameters (variable)                    |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 * Each optional parameter is Type (1) | Length (1) | Value; only type 2, Capabilities (RFC 5492), is supported.
 * mlb sends all its capabilities in one parameter. It reads RFC 9072's extended form too (Opt Parm Len 255 and a
 * first type of 255, then a 2-octet length, and 2-octet parameter lengths), which a peer with many capabilities
 * may send without negotiation; it never writes it. The checks that need configuration (the peer's AS, our own
 * identifier, required capabilities) belong to the session, not here.
 */
import { BGP_VERSION, MessageType, OpenErrorSubcode, type BgpOpen, type Capability } from '../bgp-messages';
import { formatIP, parseIP } from '../../../ip';
import { BgpEncodeError, BgpEncodeErrorCode, malformedOpen, openError, unsupportedVersion, type BgpDecodeError } from './codec-errors';
import { ByteWriter, readUint } from './byte-writer';
import { decodeCapabilities, encodeCapability } from './capability-codec';
import { finishMessage, writeHeader } from './message-header';

/** Version (1) + My AS (2) + Hold Time (2) + BGP Identifier (4) + Opt Parm Len (1). */
const OPEN_FIXED_BYTES = 10;
const OPTIONAL_PARAMETER_CAPABILITIES = 2;
/** RFC 9072 section 2: the Non-Ext OP Type / Opt Parm Len value announcing the extended encoding. */
const EXTENDED_OPTIONAL_PARAMETERS = 255;
const MAX_OPTIONAL_PARAMETER_BYTES = 255;
/** RFC 4271 4.2: "the Hold Time MUST be either zero or at least three seconds". */
const MIN_NONZERO_HOLD_TIME_SECONDS = 3;

export type OpenDecoded = { readonly ok: true; readonly message: BgpOpen } | { readonly ok: false; readonly error: BgpDecodeError };

/** Decodes the body of an OPEN (the octets after the header; at least 10, checked by the header). */
export function decodeOpenBody(body: Uint8Array): OpenDecoded {
  const version = body[0] as number;
  // RFC 4271 6.2: Unsupported Version Number, data = the largest locally supported version.
  if (version !== BGP_VERSION) return { ok: false, error: unsupportedVersion(version, BGP_VERSION) };
  const myAs = readUint(body, 1, 2);
  // RFC 7607 section 2: AS 0 in an OPEN is Bad Peer AS.
  if (myAs === 0) return { ok: false, error: openError(OpenErrorSubcode.badPeerAs, 'My Autonomous System is 0') };
  const holdTimeSeconds = readUint(body, 3, 2);
  if (holdTimeSeconds > 0 && holdTimeSeconds < MIN_NONZERO_HOLD_TIME_SECONDS) {
    return { ok: false, error: openError(OpenErrorSubcode.unacceptableHoldTime, `hold time ${holdTimeSeconds} s`) };
  }
  const identifier = readUint(body, 5, 4);
  // RFC 6286 section 2.2: the identifier is any non-zero 32-bit value (RFC 4271's "unicast host address" relaxed).
  if (identifier === 0) return { ok: false, error: openError(OpenErrorSubcode.badBgpIdentifier, 'BGP Identifier is 0.0.0.0') };
  const parameters = decodeOptionalParameters(body.subarray(OPEN_FIXED_BYTES - 1));
  if (!parameters.ok) return parameters;
  return {
    ok: true,
    message: {
      type: 'open',
      version,
      myAs,
      holdTimeSeconds,
      bgpIdentifier: formatIP({ family: 4, value: BigInt(identifier) }),
      capabilities: parameters.capabilities,
    },
  };
}

type ParametersDecoded =
  { readonly ok: true; readonly capabilities: Capability[] } | { readonly ok: false; readonly error: BgpDecodeError };

/** `bytes` starts at Opt Parm Len; its declared length must match what follows exactly. */
function decodeOptionalParameters(bytes: Uint8Array): ParametersDecoded {
  const declared = bytes[0] as number;
  const extended = declared === EXTENDED_OPTIONAL_PARAMETERS && bytes.length >= 2 && bytes[1] === EXTENDED_OPTIONAL_PARAMETERS;
  const start = extended ? 4 : 1;
  if (extended && bytes.length < start) return { ok: false, error: malformedOpen('RFC 9072 extended length truncated') };
  const length = extended ? readUint(bytes, 2, 2) : declared;
  if (start + length !== bytes.length) {
    return { ok: false, error: malformedOpen(`optional parameters claim ${length} octets, ${bytes.length - start} follow`) };
  }
  const lengthBytes = extended ? 2 : 1;
  const capabilities: Capability[] = [];
  let offset = start;
  while (offset < bytes.length) {
    if (offset + 1 + lengthBytes > bytes.length) return { ok: false, error: malformedOpen('optional parameter header truncated') };
    const type = bytes[offset] as number;
    const parameterLength = readUint(bytes, offset + 1, lengthBytes);
    const valueStart = offset + 1 + lengthBytes;
    if (valueStart + parameterLength > bytes.length) {
      return {
        ok: false,
        error: malformedOpen(`optional parameter ${type} claims ${parameterLength} octets, ${bytes.length - valueStart} remain`),
      };
    }
    // RFC 4271 6.2: "If one of the Optional Parameters in the OPEN message is not recognized" -> subcode 4.
    if (type !== OPTIONAL_PARAMETER_CAPABILITIES) {
      return { ok: false, error: openError(OpenErrorSubcode.unsupportedOptionalParameter, `optional parameter type ${type}`) };
    }
    const decoded = decodeCapabilities(bytes.subarray(valueStart, valueStart + parameterLength));
    if (!decoded.ok) return decoded;
    capabilities.push(...decoded.capabilities);
    offset = valueStart + parameterLength;
  }
  return { ok: true, capabilities };
}

function fieldError(reason: string): BgpEncodeError {
  return new BgpEncodeError(BgpEncodeErrorCode.invalidField, reason);
}

export function encodeOpen(message: BgpOpen): Uint8Array {
  const identifier = parseIP(message.bgpIdentifier);
  if (!identifier || identifier.family !== 4) throw fieldError(`BGP Identifier ${message.bgpIdentifier} is not a dotted quad`);
  for (const [value, max, what] of [
    [message.version, 0xff, 'version'],
    [message.myAs, 0xffff, 'My AS (use AS_TRANS for 4-octet ASNs)'],
    [message.holdTimeSeconds, 0xffff, 'hold time'],
  ] as const) {
    if (!Number.isInteger(value) || value < 0 || value > max) throw fieldError(`${what} ${value} is outside 0..${max}`);
  }
  const writer = new ByteWriter();
  writeHeader(writer, MessageType.open);
  writer.u8(message.version).u16(message.myAs).u16(message.holdTimeSeconds).u32(Number(identifier.value));
  const optLenAt = writer.length;
  writer.u8(0);
  if (message.capabilities.length > 0) {
    writer.u8(OPTIONAL_PARAMETER_CAPABILITIES);
    const parameterLengthAt = writer.length;
    writer.u8(0);
    for (const capability of message.capabilities) encodeCapability(writer, capability);
    const parameterLength = writer.length - parameterLengthAt - 1;
    if (parameterLength + 2 > MAX_OPTIONAL_PARAMETER_BYTES)
      throw fieldError(`capabilities take ${parameterLength} octets, more than one parameter holds`);
    writer.patchU8(parameterLengthAt, parameterLength);
    writer.patchU8(optLenAt, parameterLength + 2);
  }
  return finishMessage(writer);
}
