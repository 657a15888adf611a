/**
 * Capabilities (RFC 5492), carried in OPEN optional parameters of type 2. Each one is a TLV:
 *
 *   +------------------------------+
 *   | Capability Code (1 octet)    |
 *   +------------------------------+
 *   | Capability Length (1 octet)  |
 *   +------------------------------+
 *   | Capability Value (variable)  |
 *   +------------------------------+
 *
 * Values mlb understands:
 *   1  Multiprotocol (RFC 4760 8):   AFI (2) | Reserved (1) | SAFI (1)
 *   2  Route refresh (RFC 2918 2):   empty
 *   64 Graceful restart (RFC 4724 3): Restart Flags (4 bits) | Restart Time (12 bits) | { AFI (2) SAFI (1) Flags (1) }*
 *   65 4-octet ASN (RFC 6793 3):     the ASN (4)
 * Anything else is kept as received ('unknown'): a capability we do not speak is ignored, never an error. A
 * capability we do speak with a value of the wrong shape is a malformed optional parameter (RFC 4271 6.2:
 * OPEN Message Error, subcode 0 Unspecific).
 */
import { CapabilityCode, OpenErrorSubcode, type Capability } from '../bgp-messages';
import { BgpEncodeError, BgpEncodeErrorCode, malformedOpen, openError, type BgpDecodeError } from './codec-errors';
import { readUint, type ByteWriter } from './byte-writer';

const MULTIPROTOCOL_BYTES = 4;
const FOUR_OCTET_ASN_BYTES = 4;
const GRACEFUL_RESTART_HEADER_BYTES = 2;
const GRACEFUL_RESTART_FAMILY_BYTES = 4;
const RESTART_TIME_MASK = 0x0fff;
const RESTART_FLAGS_SHIFT = 12;
const MAX_RESTART_FLAGS = 0xf;
/** A capability's length is one octet. */
const MAX_CAPABILITY_VALUE_BYTES = 255;

export type CapabilitiesDecoded =
  { readonly ok: true; readonly capabilities: Capability[] } | { readonly ok: false; readonly error: BgpDecodeError };

/** Decodes the value of one Capabilities optional parameter (it may hold several capabilities). */
export function decodeCapabilities(bytes: Uint8Array): CapabilitiesDecoded {
  const capabilities: Capability[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    if (offset + 2 > bytes.length) return { ok: false, error: malformedOpen('capability header truncated') };
    const code = bytes[offset] as number;
    const length = bytes[offset + 1] as number;
    const start = offset + 2;
    if (start + length > bytes.length) {
      return { ok: false, error: malformedOpen(`capability ${code} claims ${length} octets, ${bytes.length - start} remain`) };
    }
    const decoded = decodeCapability(code, bytes.subarray(start, start + length));
    if (!decoded.ok) return decoded;
    capabilities.push(decoded.capability);
    offset = start + length;
  }
  return { ok: true, capabilities };
}

type CapabilityDecoded = { readonly ok: true; readonly capability: Capability } | { readonly ok: false; readonly error: BgpDecodeError };

function decodeCapability(code: number, value: Uint8Array): CapabilityDecoded {
  const wrongLength = (expected: string): CapabilityDecoded => ({
    ok: false,
    error: malformedOpen(`capability ${code} has ${value.length} octets, expected ${expected}`),
  });
  switch (code) {
    case CapabilityCode.multiprotocol:
      if (value.length !== MULTIPROTOCOL_BYTES) return wrongLength(String(MULTIPROTOCOL_BYTES));
      // The reserved octet "SHOULD be ignored by the receiver" (RFC 4760 8).
      return { ok: true, capability: { code: 'multiprotocol', afi: readUint(value, 0, 2), safi: value[3] as number } };
    case CapabilityCode.routeRefresh:
      if (value.length !== 0) return wrongLength('0');
      return { ok: true, capability: { code: 'routeRefresh' } };
    case CapabilityCode.fourOctetAsn: {
      if (value.length !== FOUR_OCTET_ASN_BYTES) return wrongLength(String(FOUR_OCTET_ASN_BYTES));
      const asn = readUint(value, 0, 4);
      // RFC 7607 section 2: AS 0 as the peer's AS in OPEN is "Bad Peer AS" (it covers this capability too).
      if (asn === 0) return { ok: false, error: openError(OpenErrorSubcode.badPeerAs, 'the 4-octet ASN capability carries AS 0') };
      return { ok: true, capability: { code: 'fourOctetAsn', asn } };
    }
    case CapabilityCode.gracefulRestart:
      return decodeGracefulRestart(value, wrongLength);
    default:
      return { ok: true, capability: { code: 'unknown', type: code, value: value.slice() } };
  }
}

function decodeGracefulRestart(value: Uint8Array, wrongLength: (expected: string) => CapabilityDecoded): CapabilityDecoded {
  const familyBytes = value.length - GRACEFUL_RESTART_HEADER_BYTES;
  if (familyBytes < 0 || familyBytes % GRACEFUL_RESTART_FAMILY_BYTES !== 0) return wrongLength('2 + 4n');
  const head = readUint(value, 0, 2);
  const families: { afi: number; safi: number; flags: number }[] = [];
  for (let o = GRACEFUL_RESTART_HEADER_BYTES; o < value.length; o += GRACEFUL_RESTART_FAMILY_BYTES) {
    families.push({ afi: readUint(value, o, 2), safi: value[o + 2] as number, flags: value[o + 3] as number });
  }
  return {
    ok: true,
    capability: {
      code: 'gracefulRestart',
      restartFlags: head >> RESTART_FLAGS_SHIFT,
      restartTimeSeconds: head & RESTART_TIME_MASK,
      families,
    },
  };
}

function fieldError(reason: string): BgpEncodeError {
  return new BgpEncodeError(BgpEncodeErrorCode.invalidField, reason);
}

function checkUint(value: number, max: number, what: string): number {
  if (!Number.isInteger(value) || value < 0 || value > max) throw fieldError(`${what} ${value} is outside 0..${max}`);
  return value;
}

/** Writes one capability TLV. */
export function encodeCapability(writer: ByteWriter, capability: Capability): void {
  switch (capability.code) {
    case 'multiprotocol':
      writer.u8(CapabilityCode.multiprotocol).u8(MULTIPROTOCOL_BYTES);
      writer
        .u16(checkUint(capability.afi, 0xffff, 'AFI'))
        .u8(0)
        .u8(checkUint(capability.safi, 0xff, 'SAFI'));
      return;
    case 'routeRefresh':
      writer.u8(CapabilityCode.routeRefresh).u8(0);
      return;
    case 'fourOctetAsn':
      writer
        .u8(CapabilityCode.fourOctetAsn)
        .u8(FOUR_OCTET_ASN_BYTES)
        .u32(checkUint(capability.asn, 0xffff_ffff, 'ASN'));
      return;
    case 'gracefulRestart': {
      const length = GRACEFUL_RESTART_HEADER_BYTES + GRACEFUL_RESTART_FAMILY_BYTES * capability.families.length;
      if (length > MAX_CAPABILITY_VALUE_BYTES) throw fieldError(`graceful restart lists ${capability.families.length} families`);
      const flags = checkUint(capability.restartFlags, MAX_RESTART_FLAGS, 'restart flags');
      const time = checkUint(capability.restartTimeSeconds, RESTART_TIME_MASK, 'restart time');
      writer
        .u8(CapabilityCode.gracefulRestart)
        .u8(length)
        .u16((flags << RESTART_FLAGS_SHIFT) | time);
      for (const f of capability.families) {
        writer
          .u16(checkUint(f.afi, 0xffff, 'AFI'))
          .u8(checkUint(f.safi, 0xff, 'SAFI'))
          .u8(checkUint(f.flags, 0xff, 'family flags'));
      }
      return;
    }
    case 'unknown':
      if (capability.value.length > MAX_CAPABILITY_VALUE_BYTES)
        throw fieldError(`capability ${capability.type} value of ${capability.value.length} octets`);
      writer
        .u8(checkUint(capability.type, 0xff, 'capability code'))
        .u8(capability.value.length)
        .bytes(capability.value);
      return;
  }
}
