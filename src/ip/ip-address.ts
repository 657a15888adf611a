/**
 * An IP address as mlb holds it: a family and the address as an unsigned integer.
 *
 * IPv4-mapped IPv6 addresses (::ffff:a.b.c.d) are held as IPv4, because Go's net.IP treats them as the same
 * address (To4() succeeds and String() prints dotted quads), and MetalLB's election hashes that text.
 */
export type IPFamily = 4 | 6;

export interface IP {
  readonly family: IPFamily;
  /** The address as an unsigned integer: 32 bits for IPv4, 128 bits for IPv6. */
  readonly value: bigint;
}

export const IPV4_BITS = 32;
export const IPV6_BITS = 128;
export const IPV4_BYTES = 4;
export const IPV6_BYTES = 16;

export function bitsOf(family: IPFamily): number {
  return family === 4 ? IPV4_BITS : IPV6_BITS;
}

/** The largest address of a family, as an integer. */
export function maxValueOf(family: IPFamily): bigint {
  return (1n << BigInt(bitsOf(family))) - 1n;
}

export function makeIP(family: IPFamily, value: bigint): IP {
  if (value < 0n || value > maxValueOf(family)) {
    throw new RangeError(`value ${value} is outside the IPv${family} address space`);
  }
  return { family, value };
}

export function ipEquals(a: IP, b: IP): boolean {
  return a.family === b.family && a.value === b.value;
}

/** Orders IPv4 before IPv6, then by value: a total order for sorting and sets. */
export function compareIP(a: IP, b: IP): number {
  if (a.family !== b.family) return a.family - b.family;
  return a.value < b.value ? -1 : a.value > b.value ? 1 : 0;
}

/** Network byte order: 4 bytes for IPv4, 16 for IPv6. */
export function ipToBytes(ip: IP): Uint8Array {
  const length = ip.family === 4 ? IPV4_BYTES : IPV6_BYTES;
  const bytes = new Uint8Array(length);
  let v = ip.value;
  for (let i = length - 1; i >= 0; i--) {
    bytes[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return bytes;
}

/** Reads 4 or 16 bytes; 16 bytes holding an IPv4-mapped address become IPv4 (Go's To4). */
export function ipFromBytes(bytes: Uint8Array): IP {
  if (bytes.length !== IPV4_BYTES && bytes.length !== IPV6_BYTES) {
    throw new RangeError(`an IP address has 4 or 16 bytes, not ${bytes.length}`);
  }
  // IPv4 in one BigInt (a link dump decodes thousands of addresses; a BigInt per byte was most of it).
  if (bytes.length === IPV4_BYTES) {
    return {
      family: 4,
      value: BigInt(
        (((bytes[0] as number) << 24) | ((bytes[1] as number) << 16) | ((bytes[2] as number) << 8) | (bytes[3] as number)) >>> 0,
      ),
    };
  }
  let value = 0n;
  for (const b of bytes) value = (value << 8n) | BigInt(b);
  if (isV4MappedValue(value)) return { family: 4, value: value & 0xffff_ffffn };
  return { family: 6, value };
}

const V4_MAPPED_PREFIX = 0xffffn << 32n;

/** True for ::ffff:0:0/96, the IPv4-mapped block (RFC 4291 section 2.5.5.2). */
export function isV4MappedValue(value: bigint): boolean {
  return value >> 32n === 0xffffn && (value & ~0xffff_ffffn) === V4_MAPPED_PREFIX;
}
