/**
 * Reading a msgpack map into Go struct fields with Go's leniency (go-msgpack decode.go): keys are field names,
 * case-sensitive; unknown keys are ignored; a later duplicate key wins; nil leaves the zero value; any integer
 * width is accepted where it fits the Go type; a bool also accepts 0 and 1; a byte field also accepts an
 * array of small integers. Byte fields stay raw bytes; only names and error texts are UTF-8 decoded.
 */
import { DecodeError } from './drop-reasons';
import { MsgFloat, MsgMap, type MsgValue } from './msgpack-reader';

const utf8 = new TextDecoder('utf-8');

export const U8_MAX = 0xff;
export const U16_MAX = 0xffff;
export const U32_MAX = 0xffffffff;
/** Go's int is 64-bit; JS numbers are exact to 2^53, far beyond any length mlb accepts. */
const INT_ABS_MAX = Number.MAX_SAFE_INTEGER;

function keyText(k: MsgValue, what: string): string {
  if (!(k instanceof Uint8Array)) throw new DecodeError('badMsgpack', `${what}: map key is not a string`);
  let s = '';
  for (let i = 0; i < k.length; i++) s += String.fromCharCode(k[i] as number);
  return s;
}

export class StructFields {
  private readonly fields = new Map<string, MsgValue>();

  /** `value` must be a map; nil decodes to a struct of zero values, as in Go. */
  constructor(
    value: MsgValue,
    private readonly what: string,
  ) {
    if (value === null) return;
    if (!(value instanceof MsgMap)) throw new DecodeError('badMsgpack', `${what}: expected a map`);
    for (const [k, v] of value.entries) this.fields.set(keyText(k, what), v);
  }

  private bad(name: string, why: string): DecodeError {
    return new DecodeError('badMsgpack', `${this.what}.${name}: ${why}`);
  }

  private integer(name: string): number {
    const v = this.fields.get(name);
    if (v === undefined || v === null) return 0;
    if (typeof v === 'number') return v;
    if (v instanceof MsgFloat) throw this.bad(name, 'float where an integer is expected');
    throw this.bad(name, 'not an integer');
  }

  /** An unsigned Go field (uint8/16/32): negative or too large values are errors, as in go-msgpack. */
  uint(name: string, max: number): number {
    const v = this.integer(name);
    if (v < 0 || v > max) throw this.bad(name, `${v} out of range 0..${max}`);
    return v;
  }

  /** A Go int. */
  int(name: string): number {
    const v = this.integer(name);
    if (Math.abs(v) > INT_ABS_MAX) throw this.bad(name, `${v} out of range`);
    return v;
  }

  bool(name: string): boolean {
    const v = this.fields.get(name);
    if (v === undefined || v === null) return false;
    if (typeof v === 'boolean') return v;
    if (v === 0 || v === 1) return v === 1;
    throw this.bad(name, 'not a bool');
  }

  /** A []byte field: a copy (never a view of the packet), or undefined for nil / absent. */
  bytes(name: string): Uint8Array | undefined {
    const v = this.fields.get(name);
    if (v === undefined || v === null) return undefined;
    if (v instanceof Uint8Array) return v.slice();
    if (Array.isArray(v)) {
      const out = new Uint8Array(v.length);
      for (let i = 0; i < v.length; i++) {
        const b = v[i];
        if (typeof b !== 'number' || b < 0 || b > 0xff) throw this.bad(name, 'array element is not a byte');
        out[i] = b;
      }
      return out;
    }
    throw this.bad(name, 'not bytes');
  }

  /** A string field (Node, Name, From, SourceNode, Error): UTF-8, invalid sequences replaced. */
  text(name: string): string {
    const v = this.fields.get(name);
    if (v === undefined || v === null) return '';
    if (v instanceof Uint8Array) return utf8.decode(v);
    throw this.bad(name, 'not a string');
  }
}
