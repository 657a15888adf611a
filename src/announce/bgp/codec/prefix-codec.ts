/**
 * Prefixes as BGP carries them: in the UPDATE's Withdrawn Routes and NLRI fields (RFC 4271 4.3) and inside
 * MP_REACH_NLRI / MP_UNREACH_NLRI for IPv6 (RFC 4760 section 5, same encoding).
 *
 *   +---------------------------+
 *   |   Length (1 octet)        |   prefix length in bits
 *   +---------------------------+
 *   |   Prefix (variable)       |   ceil(length / 8) octets, trailing bits irrelevant
 *   +---------------------------+
 *
 * A field is syntactically incorrect when a length exceeds the family's bits or a prefix runs past the field
 * (RFC 7606 section 5.3); the caller turns that into its NOTIFICATION.
 */
import { bitsOf, makeCIDR, type CIDR, type IPFamily } from '../../../ip';
import { BgpEncodeError, BgpEncodeErrorCode } from './codec-errors';
import type { ByteWriter } from './byte-writer';

export type PrefixesDecoded = { readonly ok: true; readonly prefixes: CIDR[] } | { readonly ok: false; readonly reason: string };

/** Decodes a whole field of prefixes of one family; every byte must belong to a prefix. */
export function decodePrefixes(bytes: Uint8Array, family: IPFamily): PrefixesDecoded {
  const maxBits = bitsOf(family);
  const prefixes: CIDR[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const length = bytes[offset] as number;
    if (length > maxBits) return { ok: false, reason: `prefix length ${length} exceeds ${maxBits} for IPv${family}` };
    const octets = Math.ceil(length / 8);
    if (offset + 1 + octets > bytes.length) {
      return { ok: false, reason: `prefix /${length} needs ${octets} octets, ${bytes.length - offset - 1} remain` };
    }
    let value = 0n;
    for (let i = 0; i < maxBits / 8; i++) value = (value << 8n) | BigInt(i < octets ? (bytes[offset + 1 + i] as number) : 0);
    // The trailing bits after the prefix length are "irrelevant" (RFC 4271 4.3): makeCIDR clears them.
    prefixes.push(makeCIDR({ family, value }, length));
    offset += 1 + octets;
  }
  return { ok: true, prefixes };
}

export function encodePrefix(writer: ByteWriter, cidr: CIDR, family: IPFamily): void {
  if (cidr.ip.family !== family) {
    throw new BgpEncodeError(BgpEncodeErrorCode.invalidField, `an IPv${cidr.ip.family} prefix where IPv${family} is carried`);
  }
  const bits = bitsOf(family);
  if (!Number.isInteger(cidr.prefix) || cidr.prefix < 0 || cidr.prefix > bits) {
    throw new BgpEncodeError(BgpEncodeErrorCode.invalidField, `prefix length ${cidr.prefix} for IPv${family}`);
  }
  writer.u8(cidr.prefix);
  // Host bits are zeroed so the receiver sees exactly the network (the decoder does the same).
  const network = makeCIDR(cidr.ip, cidr.prefix).ip.value;
  const octets = Math.ceil(cidr.prefix / 8);
  for (let i = 0; i < octets; i++) {
    const shift = BigInt(bits - 8 * (i + 1));
    writer.u8(Number((network >> shift) & 0xffn));
  }
}
