/**
 * A lenient msgpack reader, as lenient as Go's decoder (go-msgpack codec/msgpack.go): old and new spec, so str8
 * (0xd9) and bin8/16/32 (0xc4-0xc6) are read like str; any integer width; floats and ext are read (and then
 * rejected by the struct layer where a number is expected). Every length is distrusted: a value claiming more
 * bytes than remain raises MsgpackIncomplete with the total length needed, which the packet path treats as
 * malformed and the stream reader as "wait for more bytes".
 *
 *   0x00-0x7f fixint      0x80-0x8f fixmap      0x90-0x9f fixarray    0xa0-0xbf fixstr
 *   0xc0 nil  0xc2/0xc3 bool   0xc4-0xc6 bin8/16/32   0xc7-0xc9 ext8/16/32   0xca/0xcb float32/64
 *   0xcc-0xcf uint8..64   0xd0-0xd3 int8..64   0xd4-0xd8 fixext1..16   0xd9-0xdb str8/16/32
 *   0xdc/0xdd array16/32  0xde/0xdf map16/32   0xe0-0xff negative fixint        (0xc1 is never used)
 */
import { CodecError } from './drop-reasons';
import { MSGPACK_MAX_CONTAINER_ENTRIES, MSGPACK_MAX_DEPTH } from './limits';
import { CodedError } from '../../errors/coded-error';

/** A float where an integer was expected is an error in the struct layer; kept apart from integers here. */
export class MsgFloat {
  constructor(readonly value: number) {}
}

/** An ext value: nothing in memberlist uses one; it can only appear under an unknown key. */
export class MsgExt {
  constructor(
    readonly extType: number,
    readonly data: Uint8Array,
  ) {}
}

/** A map keeps its entries in wire order, keys of any type (the struct layer wants str keys). */
export class MsgMap {
  constructor(readonly entries: ReadonlyArray<readonly [MsgValue, MsgValue]>) {}
}

/**
 * A decoded value. Integers are numbers (64-bit values beyond 2^53 lose precision, which the struct layer's
 * range checks reject anyway). str and bin are both raw bytes: views into the input, copied by the struct layer.
 */
export type MsgValue = null | boolean | number | Uint8Array | MsgFloat | MsgExt | MsgMap | MsgValue[];

/** Not an error of the data but of its length so far: `need` bytes (from the start of the buffer) are required. */
export class MsgpackIncomplete extends CodedError<'msgpackIncomplete'> {
  constructor(readonly need: number) {
    super('msgpackIncomplete', `msgpack value needs ${need} bytes`);
  }
}

export interface ReadResult {
  readonly value: MsgValue;
  /** Offset just past the value. */
  readonly end: number;
}

/** Reads one value at `offset`. Throws MsgpackIncomplete (more bytes needed) or CodecError('badMsgpack'). */
export function readValue(buf: Uint8Array, offset = 0): ReadResult {
  const r = new Reader(buf, offset);
  const value = r.value(0);
  return { value, end: r.pos };
}

class Reader {
  private readonly view: DataView;
  constructor(
    private readonly buf: Uint8Array,
    public pos: number,
  ) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  private need(n: number): void {
    if (n < 0 || this.pos + n > this.buf.length) throw new MsgpackIncomplete(this.pos + n);
  }

  private u8(): number {
    this.need(1);
    return this.buf[this.pos++] as number;
  }

  private u16(): number {
    this.need(2);
    const v = this.view.getUint16(this.pos);
    this.pos += 2;
    return v;
  }

  private u32(): number {
    this.need(4);
    const v = this.view.getUint32(this.pos);
    this.pos += 4;
    return v;
  }

  private take(n: number): Uint8Array {
    this.need(n);
    const v = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return v;
  }

  value(depth: number): MsgValue {
    const b = this.u8();
    if (b <= 0x7f) return b;
    if (b >= 0xe0) return b - 0x100;
    if (b >= 0xa0 && b <= 0xbf) return this.take(b & 0x1f);
    if (b >= 0x80 && b <= 0x8f) return this.map(b & 0x0f, depth);
    if (b >= 0x90 && b <= 0x9f) return this.array(b & 0x0f, depth);
    switch (b) {
      case 0xc0:
        return null;
      case 0xc2:
        return false;
      case 0xc3:
        return true;
      case 0xc4:
      case 0xd9:
        return this.take(this.u8());
      case 0xc5:
      case 0xda:
        return this.take(this.u16());
      case 0xc6:
      case 0xdb:
        return this.take(this.u32());
      case 0xc7:
        return this.ext(this.u8());
      case 0xc8:
        return this.ext(this.u16());
      case 0xc9:
        return this.ext(this.u32());
      case 0xca: {
        this.need(4);
        const v = this.view.getFloat32(this.pos);
        this.pos += 4;
        return new MsgFloat(v);
      }
      case 0xcb: {
        this.need(8);
        const v = this.view.getFloat64(this.pos);
        this.pos += 8;
        return new MsgFloat(v);
      }
      case 0xcc:
        return this.u8();
      case 0xcd:
        return this.u16();
      case 0xce:
        return this.u32();
      case 0xcf: {
        this.need(8);
        const v = Number(this.view.getBigUint64(this.pos));
        this.pos += 8;
        return v;
      }
      case 0xd0: {
        this.need(1);
        return this.view.getInt8(this.pos++);
      }
      case 0xd1: {
        this.need(2);
        const v = this.view.getInt16(this.pos);
        this.pos += 2;
        return v;
      }
      case 0xd2: {
        this.need(4);
        const v = this.view.getInt32(this.pos);
        this.pos += 4;
        return v;
      }
      case 0xd3: {
        this.need(8);
        const v = Number(this.view.getBigInt64(this.pos));
        this.pos += 8;
        return v;
      }
      case 0xd4:
        return this.ext(1);
      case 0xd5:
        return this.ext(2);
      case 0xd6:
        return this.ext(4);
      case 0xd7:
        return this.ext(8);
      case 0xd8:
        return this.ext(16);
      case 0xdc:
        return this.array(this.u16(), depth);
      case 0xdd:
        return this.array(this.u32(), depth);
      case 0xde:
        return this.map(this.u16(), depth);
      case 0xdf:
        return this.map(this.u32(), depth);
      default:
        // 0xc1: "never used" in every msgpack spec.
        throw new CodecError('badMsgpack', `invalid msgpack byte 0x${b.toString(16)} at ${this.pos - 1}`);
    }
  }

  private ext(n: number): MsgExt {
    const t = this.u8();
    return new MsgExt(t, this.take(n));
  }

  private checkContainer(n: number, perEntry: number, depth: number): void {
    if (depth + 1 > MSGPACK_MAX_DEPTH) throw new CodecError('badMsgpack', `msgpack nested deeper than ${MSGPACK_MAX_DEPTH}`);
    if (n > MSGPACK_MAX_CONTAINER_ENTRIES) throw new CodecError('badMsgpack', `msgpack container of ${n} entries`);
    // Every entry takes at least one byte per value: a count that cannot fit is known short before reading it.
    this.need(n * perEntry);
  }

  private array(n: number, depth: number): MsgValue[] {
    this.checkContainer(n, 1, depth);
    const out: MsgValue[] = new Array<MsgValue>(n);
    for (let i = 0; i < n; i++) out[i] = this.value(depth + 1);
    return out;
  }

  private map(n: number, depth: number): MsgMap {
    this.checkContainer(n, 2, depth);
    const out: Array<readonly [MsgValue, MsgValue]> = new Array(n);
    for (let i = 0; i < n; i++) {
      const k = this.value(depth + 1);
      out[i] = [k, this.value(depth + 1)];
    }
    return new MsgMap(out);
  }
}
