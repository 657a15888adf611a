/**
 * Reading one record's msgpack value (records-envelope.ts) field by field. Every record body is an array of
 * fields in a fixed order; a decoder reads the fields it knows and ignores any after them, so a later release can
 * append fields without a new records version. Every value is distrusted: types, ranges and lengths are checked
 * here, and the first wrong one throws BadRecordField, which the records decoder turns into a counted drop
 * (records-codec.ts); nothing thrown here leaves the decoder. Pure.
 */
import { CodedError } from '../../errors/coded-error';
import { MsgMap, type MsgValue } from '../../gossip/codec/msgpack-reader';

/** A field of the wrong type, range or length: the record is dropped and counted. */
export class BadRecordField extends CodedError<'badRecordField'> {
  constructor(message: string) {
    super('badRecordField', message);
  }
}

const utf8Decoder = new TextDecoder('utf-8', { fatal: true });
const utf8 = new TextEncoder();

/** The fields of one record body, read in order. */
export class RecordFields {
  private next = 0;

  constructor(
    private readonly fields: readonly MsgValue[],
    private readonly what: string,
  ) {}

  /** `value` must be an array of at least `min` fields (what the oldest layout of this kind wrote). */
  static of(value: MsgValue, what: string, min: number): RecordFields {
    if (!Array.isArray(value)) throw new BadRecordField(`${what}: not an array of fields`);
    if (value.length < min) throw new BadRecordField(`${what}: ${value.length} fields, at least ${min} expected`);
    return new RecordFields(value, what);
  }

  /** The next field, undefined when an older sender did not write it. */
  optional(): MsgValue | undefined {
    return this.fields[this.next++];
  }

  value(): MsgValue {
    const v = this.fields[this.next];
    if (v === undefined) throw new BadRecordField(`${this.what}: field ${this.next} missing`);
    this.next++;
    return v;
  }

  count(): number {
    return countOf(this.value(), this.what);
  }

  text(maxBytes: number, mayBeEmpty = false): string {
    return textOf(this.value(), this.what, maxBytes, mayBeEmpty);
  }

  bool(): boolean {
    const v = this.value();
    if (typeof v !== 'boolean') throw new BadRecordField(`${this.what}: not a bool`);
    return v;
  }

  bytes(lengths: readonly number[]): Uint8Array {
    return bytesOf(this.value(), this.what, lengths);
  }

  list(maxEntries: number): MsgValue[] {
    return listOf(this.value(), this.what, maxEntries);
  }
}

/** A whole number that JavaScript holds exactly (epochs, sequence numbers, times, counts). */
export function countOf(v: MsgValue, what: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw new BadRecordField(`${what}: not a whole number >= 0`);
  return v;
}

/** UTF-8 text of at most `maxBytes` (checked on the raw bytes before decoding). */
export function textOf(v: MsgValue, what: string, maxBytes: number, mayBeEmpty = false): string {
  if (!(v instanceof Uint8Array)) throw new BadRecordField(`${what}: not a string`);
  if (v.length > maxBytes) throw new BadRecordField(`${what}: a string of ${v.length} bytes, at most ${maxBytes}`);
  if (v.length === 0 && !mayBeEmpty) throw new BadRecordField(`${what}: an empty string`);
  try {
    return utf8Decoder.decode(v);
  } catch {
    throw new BadRecordField(`${what}: not UTF-8`);
  }
}

export function bytesOf(v: MsgValue, what: string, lengths: readonly number[]): Uint8Array {
  if (!(v instanceof Uint8Array) || !lengths.includes(v.length)) throw new BadRecordField(`${what}: not ${lengths.join(' or ')} bytes`);
  return v.slice();
}

/** An array of at most `maxEntries` (the reader already refused counts longer than the bytes that remain). */
function listOf(v: MsgValue, what: string, maxEntries: number): MsgValue[] {
  if (!Array.isArray(v)) throw new BadRecordField(`${what}: not a list`);
  if (v.length > maxEntries) throw new BadRecordField(`${what}: ${v.length} entries, at most ${maxEntries}`);
  return v;
}

/** A map's entries, at most `maxEntries`. */
export function mapEntriesOf(v: MsgValue, what: string, maxEntries: number): ReadonlyArray<readonly [MsgValue, MsgValue]> {
  if (!(v instanceof MsgMap)) throw new BadRecordField(`${what}: not a map`);
  if (v.entries.length > maxEntries) throw new BadRecordField(`${what}: ${v.entries.length} entries, at most ${maxEntries}`);
  return v.entries;
}

/** `text` cut on a character boundary to at most `maxBytes` of UTF-8 (what an encoder does with a long detail). */
export function cutText(text: string, maxBytes: number): string {
  const bytes = utf8.encode(text);
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  // A UTF-8 continuation byte is 10xxxxxx: step back to the start of the character it belongs to.
  while (end > 0 && ((bytes[end] as number) & 0xc0) === 0x80) end--;
  return utf8Decoder.decode(bytes.subarray(0, end));
}

/** UTF-8 length of `text`, for encoders that check a limit before writing. */
export function utf8Length(text: string): number {
  return utf8.encode(text).length;
}
