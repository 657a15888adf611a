/**
 * Neighbor Discovery options (RFC 4861 section 4.6): type-length-value, the length in units of 8 octets
 * including the type and length octets.
 *
 *    0                   1                   2                   3
 *    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |     Type      |    Length     |              ...              |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   ~                              ...                              ~
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 * Source/Target Link-layer Address (section 4.6.1) on Ethernet (RFC 2464 section 6): length 1, then the MAC.
 *
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |  Type (1 / 2) |  Length = 1   |   Ethernet address (6) ...    |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 * Receive rules: a zero length discards the whole packet (4.6: "Nodes MUST silently discard an ND packet that
 * contains an option with length zero"), so does an option running past the end; unknown options are skipped
 * (4.6: "MUST silently ignore any options they do not recognize").
 */
import { decoded, dropped, type Decoded } from './drop-reasons';
import { MAC_BYTES, macAt, type MacAddress } from './mac-address';

/** Option types (RFC 4861 4.6; IANA "IPv6 Neighbor Discovery Option Formats"). Append-only. */
const NdpOptionType = {
  sourceLinkLayerAddress: 1,
  targetLinkLayerAddress: 2,
} as const;

/** The option length unit: 8 octets. */
const NDP_OPTION_UNIT_BYTES = 8;
/** An Ethernet link-layer address option: 2 header octets + 6 MAC octets = one unit (RFC 2464 section 6). */
const LINK_LAYER_OPTION_UNITS = 1;

export type NdpOption =
  | { readonly kind: 'sourceLinkLayer'; readonly mac: MacAddress }
  | { readonly kind: 'targetLinkLayer'; readonly mac: MacAddress }
  /** Recognised by nobody here; kept for round trips and debugging (value excludes type and length octets). */
  | { readonly kind: 'unknown'; readonly type: number; readonly data: Uint8Array };

export function decodeNdpOptions(bytes: Uint8Array): Decoded<readonly NdpOption[]> {
  const options: NdpOption[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    if (bytes.length - offset < 2) return dropped('malformedOption', `option header cut at offset ${offset}`);
    const type = bytes[offset] as number;
    const units = bytes[offset + 1] as number;
    if (units === 0) return dropped('malformedOption', `option type ${type} with length 0`);
    const length = units * NDP_OPTION_UNIT_BYTES;
    if (length > bytes.length - offset) return dropped('malformedOption', `option type ${type} runs past the packet`);
    if (type === NdpOptionType.sourceLinkLayerAddress || type === NdpOptionType.targetLinkLayerAddress) {
      // An Ethernet address needs exactly one unit; anything longer is another link type's, useless here.
      if (units !== LINK_LAYER_OPTION_UNITS) return dropped('malformedOption', `link-layer option of ${units} units`);
      const mac = macAt(bytes, offset + 2);
      options.push(type === NdpOptionType.sourceLinkLayerAddress ? { kind: 'sourceLinkLayer', mac } : { kind: 'targetLinkLayer', mac });
    } else {
      options.push({ kind: 'unknown', type, data: bytes.slice(offset + 2, offset + length) });
    }
    offset += length;
  }
  return decoded(options);
}

/** Bytes an option occupies on the wire. Unknown options are padded to a whole number of units. */
function ndpOptionBytes(option: NdpOption): number {
  if (option.kind !== 'unknown') return LINK_LAYER_OPTION_UNITS * NDP_OPTION_UNIT_BYTES;
  return Math.ceil((option.data.length + 2) / NDP_OPTION_UNIT_BYTES) * NDP_OPTION_UNIT_BYTES;
}

export function encodeNdpOptions(options: readonly NdpOption[]): Uint8Array {
  let total = 0;
  for (const o of options) total += ndpOptionBytes(o);
  const out = new Uint8Array(total);
  let offset = 0;
  for (const o of options) {
    const length = ndpOptionBytes(o);
    if (length / NDP_OPTION_UNIT_BYTES > 0xff) throw new RangeError('NDP option longer than 255 units');
    if (o.kind === 'unknown') {
      out[offset] = o.type;
      out.set(o.data, offset + 2);
    } else {
      if (o.mac.length !== MAC_BYTES) throw new RangeError('link-layer address must be 6 bytes');
      out[offset] = o.kind === 'sourceLinkLayer' ? NdpOptionType.sourceLinkLayerAddress : NdpOptionType.targetLinkLayerAddress;
      out.set(o.mac, offset + 2);
    }
    out[offset + 1] = length / NDP_OPTION_UNIT_BYTES;
    offset += length;
  }
  return out;
}

/** The first source link-layer address option's MAC (RFC 4861 7.2.3 uses it to answer), if any. */
export function sourceLinkLayerOf(options: readonly NdpOption[]): MacAddress | undefined {
  for (const o of options) if (o.kind === 'sourceLinkLayer') return o.mac;
  return undefined;
}
