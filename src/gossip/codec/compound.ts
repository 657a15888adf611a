/**
 * Compound messages: several messages in one packet (memberlist util.go makeCompoundMessage and
 * decodeCompoundMessage).
 *
 *   +------+-------+------------------------------+---------------------------+
 *   | 0x07 | count | count x u16 big-endian length | count bodies, back to back |
 *   +------+-------+------------------------------+---------------------------+
 *     1 B    1 B          2 x count bytes
 *
 * A packet cut short keeps the parts that fit whole and reports how many were lost (Go logs "Compound request
 * had N truncated messages" and handles the rest). Bytes after the last part are ignored, as in Go.
 */
import { MessageType } from '../messages';
import { CodecError, DecodeError } from './drop-reasons';
import { COMPOUND_MAX_PARTS, COMPOUND_PART_MAX_BYTES } from './limits';

export function encodeCompound(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length > COMPOUND_MAX_PARTS) throw new CodecError('tooManyParts', `${parts.length} parts (at most ${COMPOUND_MAX_PARTS})`);
  let size = 2 + 2 * parts.length;
  for (const p of parts) {
    if (p.length > COMPOUND_PART_MAX_BYTES) throw new CodecError('partTooLarge', `compound part of ${p.length} bytes`);
    size += p.length;
  }
  const out = new Uint8Array(size);
  out[0] = MessageType.compound;
  out[1] = parts.length;
  let pos = 2 + 2 * parts.length;
  parts.forEach((p, i) => {
    out[2 + 2 * i] = p.length >>> 8;
    out[3 + 2 * i] = p.length & 0xff;
    out.set(p, pos);
    pos += p.length;
  });
  return out;
}

export interface CompoundParts {
  /** Views into the input, in order. */
  readonly parts: Uint8Array[];
  /** Parts announced but not present (0 when the packet is whole). */
  readonly truncated: number;
}

/** Splits a compound body (the bytes after the 0x07 type byte). Throws DecodeError('badCompound') on a short header. */
export function decodeCompound(body: Uint8Array): CompoundParts {
  if (body.length < 1) throw new DecodeError('badCompound', 'missing compound length byte');
  const count = body[0] as number;
  // Go computes numParts*2 in uint8 here (a wrap-around for count >= 128); mlb uses the real header size.
  if (body.length < 1 + 2 * count) throw new DecodeError('badCompound', `compound of ${count} parts has a truncated length table`);
  const parts: Uint8Array[] = [];
  let pos = 1 + 2 * count;
  for (let i = 0; i < count; i++) {
    const len = ((body[1 + 2 * i] as number) << 8) | (body[2 + 2 * i] as number);
    if (body.length - pos < len) return { parts, truncated: count - i };
    parts.push(body.subarray(pos, pos + len));
    pos += len;
  }
  return { parts, truncated: 0 };
}
