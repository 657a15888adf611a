/**
 * LZW exactly as Go's compress/lzw with lzw.LSB and litWidth 8, which is what memberlist uses (util.go
 * compressPayload, lzwLitWidth = 8).
 *
 *   codes 0-255 literals, 256 clear, 257 end, 258.. dictionary entries; first width 9 bits, up to 12
 *   codes are packed least-significant bit first:  byte0 = code0 bits 0-7, byte1 = code0 bit 8 | code1 bits 0-6 ...
 *
 *   writer: clear first; after each emitted code the next free entry `hi` grows, and the width grows when hi
 *           reaches 2^width; when hi reaches 4095 it emits clear (at width 12) and starts over; end code last,
 *           then the partial byte.
 *   reader: a leading clear is optional (the start state equals the post-clear state); the end code is
 *           required (Go returns io.ErrUnexpectedEOF without it); bytes after it are ignored; a code above the
 *           next free entry is invalid. Output is capped: an LZW bomb stops at the cap, never beyond it.
 */
import { DecodeError } from './drop-reasons';

const CLEAR = 256;
const EOF_CODE = 257;
const FIRST_WIDTH = 9;
const MAX_WIDTH = 12;
/** Go writer.go maxCode: when the next entry would be 4095 the writer emits clear instead. */
const MAX_CODE = (1 << MAX_WIDTH) - 1;

/** Open-addressing table of (prefix code << 8 | byte) -> code; 4x the 4096 codes so probes stay short. */
const TABLE_SIZE = 4 << MAX_WIDTH;
const TABLE_MASK = TABLE_SIZE - 1;

class BitWriter {
  out: Uint8Array;
  len = 0;
  private bits = 0;
  private nBits = 0;
  constructor(capacity: number) {
    this.out = new Uint8Array(Math.max(16, capacity));
  }
  write(code: number, width: number): void {
    this.bits |= code << this.nBits;
    this.nBits += width;
    while (this.nBits >= 8) {
      if (this.len === this.out.length) {
        const next = new Uint8Array(this.out.length * 2);
        next.set(this.out);
        this.out = next;
      }
      this.out[this.len++] = this.bits & 0xff;
      this.bits >>>= 8;
      this.nBits -= 8;
    }
  }
  finish(): Uint8Array {
    if (this.nBits > 0) this.write(0, 8 - this.nBits);
    return this.out.slice(0, this.len);
  }
}

/** Compresses like Go's lzw.NewWriter(w, lzw.LSB, 8): byte-identical output. */
/**
 * The compressor's hash table, shared by every call (compression is synchronous, so calls never overlap): a slot
 * is in use only when its stamp is the current call's, so a call starts with an empty table without zeroing
 * 96 KiB. Allocating and zeroing fresh tables per packet was most of the cost of gossip in a large simulated
 * cluster, where every ping and ack is compressed.
 */
const SCRATCH_KEYS = new Int32Array(TABLE_SIZE);
const SCRATCH_VALS = new Uint16Array(TABLE_SIZE);
const SCRATCH_STAMPS = new Uint32Array(TABLE_SIZE);
let lastStamp = 0;

/** A stamp no slot holds yet (the table emptied); after 2^32 - 1 of them the stamps are cleared once. */
function nextStamp(): number {
  lastStamp = (lastStamp + 1) >>> 0;
  if (lastStamp === 0) {
    SCRATCH_STAMPS.fill(0);
    lastStamp = 1;
  }
  return lastStamp;
}

export function lzwCompress(input: Uint8Array): Uint8Array {
  const w = new BitWriter(input.length + 16);
  if (input.length === 0) {
    // Go: Write of nothing emits nothing; Close then writes clear and end.
    w.write(CLEAR, FIRST_WIDTH);
    w.write(EOF_CODE, FIRST_WIDTH);
    return w.finish();
  }
  const keys = SCRATCH_KEYS;
  const vals = SCRATCH_VALS;
  const stamps = SCRATCH_STAMPS;
  let stamp = nextStamp();
  let width = FIRST_WIDTH;
  let hi = EOF_CODE;
  let overflow = 1 << FIRST_WIDTH;

  /** Go writer.go incHi: returns false when the table was reset (no entry to add). */
  const incHi = (): boolean => {
    hi++;
    if (hi === overflow) {
      width++;
      overflow <<= 1;
    }
    if (hi === MAX_CODE) {
      w.write(CLEAR, width);
      width = FIRST_WIDTH;
      hi = EOF_CODE;
      overflow = 1 << FIRST_WIDTH;
      stamp = nextStamp();
      return false;
    }
    return true;
  };

  w.write(CLEAR, width);
  let code = input[0] as number;
  outer: for (let i = 1; i < input.length; i++) {
    const lit = input[i] as number;
    const key = (code << 8) | lit;
    let h = ((key >>> 12) ^ key) & TABLE_MASK;
    for (; stamps[h] === stamp; h = (h + 1) & TABLE_MASK) {
      if (keys[h] === key) {
        code = vals[h] as number;
        continue outer;
      }
    }
    w.write(code, width);
    code = lit;
    if (!incHi()) continue;
    keys[h] = key;
    vals[h] = hi;
    stamps[h] = stamp;
  }
  w.write(code, width);
  incHi();
  w.write(EOF_CODE, width);
  return w.finish();
}

/**
 * The decompressor's dictionary, shared by every call (decompression is synchronous) instead of 32 KiB allocated
 * and zeroed per packet. What an earlier call left in it is never read: a code is looked up only when it is below
 * the next free entry, and every entry below it was written by this call since its last clear (entries are
 * defined in order from 258, one per code after the first).
 */
const DECODE_STARTS = new Int32Array(1 << MAX_WIDTH);
const DECODE_LENGTHS = new Int32Array(1 << MAX_WIDTH);

/**
 * Decompresses Go-style LSB LZW. Throws DecodeError 'badLzw' (invalid code, missing end code) or 'lzwTooLarge'
 * (output would pass maxOutput). Memory stays within maxOutput plus the 32 KiB of tables.
 */
export function lzwDecompress(input: Uint8Array, maxOutput: number): Uint8Array {
  // Each dictionary entry is a run of earlier output: entry = output[start, start + len).
  const entryStart = DECODE_STARTS;
  const entryLen = DECODE_LENGTHS;
  let out = new Uint8Array(Math.min(maxOutput, Math.max(256, input.length * 4)));
  let o = 0;
  const ensure = (n: number): void => {
    if (o + n > maxOutput) throw new DecodeError('lzwTooLarge', `LZW output passes ${maxOutput} bytes`);
    if (o + n <= out.length) return;
    let cap = out.length * 2;
    while (cap < o + n) cap *= 2;
    const next = new Uint8Array(Math.min(cap, maxOutput));
    next.set(out.subarray(0, o));
    out = next;
  };

  let width = FIRST_WIDTH;
  let hi = EOF_CODE;
  let overflow = 1 << FIRST_WIDTH;
  let last = -1;
  let lastStart = 0;
  let lastLen = 0;
  let bits = 0;
  let nBits = 0;
  let ip = 0;
  for (;;) {
    while (nBits < width) {
      if (ip >= input.length) throw new DecodeError('badLzw', 'LZW data ends without an end code');
      bits |= (input[ip++] as number) << nBits;
      nBits += 8;
    }
    const code = bits & ((1 << width) - 1);
    bits >>>= width;
    nBits -= width;

    let start: number;
    let len: number;
    if (code < CLEAR) {
      ensure(1);
      out[o] = code;
      start = o;
      len = 1;
    } else if (code === CLEAR) {
      width = FIRST_WIDTH;
      hi = EOF_CODE;
      overflow = 1 << FIRST_WIDTH;
      last = -1;
      continue;
    } else if (code === EOF_CODE) {
      break;
    } else if (code === hi && last !== -1) {
      // The entry being defined right now: last's string plus its own first byte.
      len = lastLen + 1;
      ensure(len);
      out.copyWithin(o, lastStart, lastStart + lastLen);
      out[o + lastLen] = out[lastStart] as number;
      start = o;
    } else if (code <= hi && (entryLen[code] as number) > 0) {
      len = entryLen[code] as number;
      ensure(len);
      const from = entryStart[code] as number;
      out.copyWithin(o, from, from + len);
      start = o;
    } else {
      throw new DecodeError('badLzw', `invalid LZW code ${code} (next entry ${hi})`);
    }
    if (last !== -1) {
      entryStart[hi] = lastStart;
      entryLen[hi] = lastLen + 1;
    }
    o += len;
    last = code;
    lastStart = start;
    lastLen = len;
    hi++;
    if (hi >= overflow) {
      if (width === MAX_WIDTH) {
        // Table full: Go's reader stops adding entries until the next clear.
        last = -1;
        hi--;
      } else {
        width++;
        overflow <<= 1;
      }
    }
  }
  return out.slice(0, o);
}
