/**
 * msgpack output exactly as memberlist writes it: hashicorp/go-msgpack's MsgpackHandle with WriteExt off, the
 * "old spec" (docs/memberlist-wire.md section 1, go-msgpack codec/msgpack.go writeContainerLen and encodeUint).
 *
 *   nil            0xc0
 *   bool           0xc2 false, 0xc3 true
 *   uint / int>=0  0x00-0x7f | 0xcc u8 | 0xcd u16 | 0xce u32 | 0xcf u64   (smallest that fits; 0.2.2 writes a
 *                                                                          non-negative signed int as unsigned)
 *   negative int   0xe0-0xff | 0xd0 i8 | 0xd1 i16 | 0xd2 i32 | 0xd3 i64
 *   str and bytes  0xa0-0xbf (< 32) | 0xda u16 | 0xdb u32                 (never str8 0xd9, never bin 0xc4-0xc6:
 *                                                                          old-spec readers do not know them)
 *   map            0x80-0x8f (< 16) | 0xde u16 | 0xdf u32
 *   array          0x90-0x9f (< 16) | 0xdc u16 | 0xdd u32
 * All multi-byte numbers big-endian. Structs are maps keyed by Go field names in sorted order (writeStruct).
 */
import { CodecError } from './drop-reasons';

const utf8 = new TextEncoder();

/**
 * The encoded bytes of each struct field name seen: the names are a fixed vocabulary (memberlist's Go field names)
 * written into every message, and encoding them afresh each time was most of a busy cluster's codec work.
 */
const FIELD_NAME_BYTES = new Map<string, Uint8Array>();

function fieldNameBytes(name: string): Uint8Array {
  let bytes = FIELD_NAME_BYTES.get(name);
  if (!bytes) {
    bytes = utf8.encode(name);
    FIELD_NAME_BYTES.set(name, bytes);
  }
  return bytes;
}

/** One struct field's value; `bytes` with undefined is Go's nil slice (0xc0). */
export type FieldValue =
  | { readonly uint: number }
  | { readonly int: number }
  | { readonly bool: boolean }
  | { readonly str: string }
  | { readonly bytes: Uint8Array | undefined };

export class MsgpackWriter {
  private buf: Uint8Array;
  private view: DataView;
  private len = 0;

  constructor(initialCapacity = 256) {
    this.buf = new Uint8Array(initialCapacity);
    this.view = new DataView(this.buf.buffer);
  }

  get length(): number {
    return this.len;
  }

  /** A copy of what was written (the writer may be reused or grow afterwards). */
  bytes(): Uint8Array {
    return this.buf.slice(0, this.len);
  }

  private ensure(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.len + n) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  byte(b: number): this {
    this.ensure(1);
    this.buf[this.len++] = b;
    return this;
  }

  raw(data: Uint8Array): this {
    this.ensure(data.length);
    this.buf.set(data, this.len);
    this.len += data.length;
    return this;
  }

  nil(): this {
    return this.byte(0xc0);
  }

  bool(v: boolean): this {
    return this.byte(v ? 0xc3 : 0xc2);
  }

  /** The smallest unsigned form (go-msgpack encodeUint). */
  uint(v: number): this {
    if (!Number.isSafeInteger(v) || v < 0) throw new CodecError('badMessage', `not an unsigned integer: ${v}`);
    if (v <= 0x7f) return this.byte(v);
    if (v <= 0xff) return this.byte(0xcc).byte(v);
    this.ensure(9);
    if (v <= 0xffff) {
      this.buf[this.len] = 0xcd;
      this.view.setUint16(this.len + 1, v);
      this.len += 3;
    } else if (v <= 0xffffffff) {
      this.buf[this.len] = 0xce;
      this.view.setUint32(this.len + 1, v);
      this.len += 5;
    } else {
      this.buf[this.len] = 0xcf;
      this.view.setBigUint64(this.len + 1, BigInt(v));
      this.len += 9;
    }
    return this;
  }

  /** Signed: non-negative values as unsigned (0.2.2 go-msgpack encodeInt), negatives in the smallest int form. */
  int(v: number): this {
    if (!Number.isSafeInteger(v)) throw new CodecError('badMessage', `not an integer: ${v}`);
    if (v >= 0) return this.uint(v);
    if (v >= -32) return this.byte(v & 0xff);
    this.ensure(9);
    if (v >= -0x80) {
      this.buf[this.len] = 0xd0;
      this.view.setInt8(this.len + 1, v);
      this.len += 2;
    } else if (v >= -0x8000) {
      this.buf[this.len] = 0xd1;
      this.view.setInt16(this.len + 1, v);
      this.len += 3;
    } else if (v >= -0x80000000) {
      this.buf[this.len] = 0xd2;
      this.view.setInt32(this.len + 1, v);
      this.len += 5;
    } else {
      this.buf[this.len] = 0xd3;
      this.view.setBigInt64(this.len + 1, BigInt(v));
      this.len += 9;
    }
    return this;
  }

  private strHeader(n: number): void {
    if (n < 32) {
      this.byte(0xa0 | n);
    } else if (n <= 0xffff) {
      this.ensure(3);
      this.buf[this.len] = 0xda;
      this.view.setUint16(this.len + 1, n);
      this.len += 3;
    } else if (n <= 0xffffffff) {
      this.ensure(5);
      this.buf[this.len] = 0xdb;
      this.view.setUint32(this.len + 1, n);
      this.len += 5;
    } else {
      throw new CodecError('badMessage', `string of ${n} bytes`);
    }
  }

  /** Raw bytes in the str family, as Go writes []byte with WriteExt off. */
  str(data: Uint8Array): this {
    this.strHeader(data.length);
    return this.raw(data);
  }

  text(s: string): this {
    return this.str(utf8.encode(s));
  }

  /** Go's nil slice is 0xc0; an empty non-nil slice is 0xa0. */
  bytesOrNil(data: Uint8Array | undefined): this {
    return data === undefined ? this.nil() : this.str(data);
  }

  private containerHeader(n: number, fix: number, b16: number, b32: number): this {
    if (n < 16) return this.byte(fix | n);
    this.ensure(5);
    if (n <= 0xffff) {
      this.buf[this.len] = b16;
      this.view.setUint16(this.len + 1, n);
      this.len += 3;
    } else {
      this.buf[this.len] = b32;
      this.view.setUint32(this.len + 1, n);
      this.len += 5;
    }
    return this;
  }

  mapHeader(n: number): this {
    return this.containerHeader(n, 0x80, 0xde, 0xdf);
  }

  arrayHeader(n: number): this {
    return this.containerHeader(n, 0x90, 0xdc, 0xdd);
  }

  /**
   * A Go struct as go-msgpack writes it: a map of field name to value, keys in byte order (go-msgpack
   * helper.go sorts struct fields by encoded name). Fields left out here are Go's omitempty fields.
   */
  struct(fields: Readonly<Record<string, FieldValue>>): this {
    const names = Object.keys(fields).sort(compareBytes);
    this.mapHeader(names.length);
    for (const name of names) {
      this.str(fieldNameBytes(name));
      const v = fields[name] as FieldValue;
      if ('uint' in v) this.uint(v.uint);
      else if ('int' in v) this.int(v.int);
      else if ('bool' in v) this.bool(v.bool);
      else if ('str' in v) this.text(v.str);
      else this.bytesOrNil(v.bytes);
    }
    return this;
  }
}

/** Byte order of ASCII field names (what Go's sort of strings does); JS string order agrees for ASCII. */
function compareBytes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
