/**
 * The Internet checksum (RFC 1071): the 16-bit one's complement of the one's complement sum of 16-bit words.
 *
 * Summed over several chunks as if they were one buffer, so the ICMPv6 pseudo-header (RFC 8200 section 8.1)
 * never has to be copied in front of the message. A chunk of odd length is padded with a zero octet for the sum;
 * only the last chunk may be odd (the pseudo-header's chunks are all even), and a violation throws.
 */

/** Adds the 16-bit big-endian words of `bytes` to `sum` without folding (fits a double for any frame size). */
export function addWords(sum: number, bytes: Uint8Array): number {
  const even = bytes.length & ~1;
  for (let i = 0; i < even; i += 2) sum += ((bytes[i] as number) << 8) | (bytes[i + 1] as number);
  if (even !== bytes.length) sum += (bytes[even] as number) << 8;
  return sum;
}

/** Folds the carries back in (RFC 1071 section 4.1: "while (sum>>16) sum = (sum & 0xffff) + (sum >> 16)"). */
export function foldSum(sum: number): number {
  while (sum > 0xffff) sum = (sum & 0xffff) + Math.floor(sum / 0x10000);
  return sum;
}

/** The checksum to write into a header whose checksum field is zero while summing. */
export function internetChecksum(...chunks: Uint8Array[]): number {
  let sum = 0;
  for (let i = 0; i < chunks.length; i++) {
    const chunk = chunks[i] as Uint8Array;
    if (chunk.length % 2 === 1 && i !== chunks.length - 1) throw new RangeError('only the last chunk may have odd length');
    sum = addWords(sum, chunk);
  }
  return ~foldSum(sum) & 0xffff;
}

/** True when data that includes its checksum field sums to all ones (RFC 1071 section 1, verification). */
export function verifiesChecksum(...chunks: Uint8Array[]): boolean {
  return internetChecksum(...chunks) === 0;
}
