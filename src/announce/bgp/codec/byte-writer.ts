/**
 * A growable big-endian byte buffer for the encoders: BGP fields are 1, 2 and 4 octets in network order, and
 * length fields are written after their contents (patched in place), so encoders never compute sizes twice.
 */
const INITIAL_BYTES = 256;

export class ByteWriter {
  private buffer = new Uint8Array(INITIAL_BYTES);
  private size = 0;

  get length(): number {
    return this.size;
  }

  private reserve(extra: number): void {
    if (this.size + extra <= this.buffer.length) return;
    let capacity = this.buffer.length * 2;
    while (capacity < this.size + extra) capacity *= 2;
    const grown = new Uint8Array(capacity);
    grown.set(this.buffer.subarray(0, this.size));
    this.buffer = grown;
  }

  u8(value: number): this {
    this.reserve(1);
    this.buffer[this.size++] = value & 0xff;
    return this;
  }

  u16(value: number): this {
    this.reserve(2);
    this.buffer[this.size++] = (value >>> 8) & 0xff;
    this.buffer[this.size++] = value & 0xff;
    return this;
  }

  u32(value: number): this {
    this.reserve(4);
    this.u16(Math.floor(value / 0x1_0000) & 0xffff);
    return this.u16(value & 0xffff);
  }

  bytes(value: Uint8Array): this {
    this.reserve(value.length);
    this.buffer.set(value, this.size);
    this.size += value.length;
    return this;
  }

  /** Overwrites a 2-octet field written earlier (a length known only after its contents). */
  patchU16(offset: number, value: number): void {
    this.buffer[offset] = (value >>> 8) & 0xff;
    this.buffer[offset + 1] = value & 0xff;
  }

  patchU8(offset: number, value: number): void {
    this.buffer[offset] = value & 0xff;
  }

  /** A copy of what was written. */
  finish(): Uint8Array {
    return this.buffer.slice(0, this.size);
  }
}

/** Reads a big-endian unsigned integer of 1, 2 or 4 octets; the caller has checked the bounds. */
export function readUint(bytes: Uint8Array, offset: number, width: 1 | 2 | 4): number {
  let value = 0;
  for (let i = 0; i < width; i++) value = value * 256 + (bytes[offset + i] as number);
  return value;
}
