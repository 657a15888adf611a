/**
 * The label header (memberlist >= 0.3.0 label.go; 0.2.2 cannot parse it, and MetalLB sets no label).
 *
 *   +------+-----+---------------------+------------------------+
 *   | 0xf4 | len | label, len bytes     | packet or stream ...   |
 *   +------+-----+---------------------+------------------------+
 *     1 B    1 B    1..255 bytes
 *
 * Written only when a label is configured; an empty label in the header is malformed. The label is also the
 * additional authenticated data of encryption (section 4 of docs/memberlist-wire.md), so a wrong label also fails
 * decryption.
 */
import { MessageType } from '../messages';
import { CodecError, DecodeError } from './drop-reasons';
import { LABEL_MAX_BYTES } from './limits';

const utf8 = new TextEncoder();

export function labelBytes(label: string | undefined): Uint8Array {
  const b = utf8.encode(label ?? '');
  if (b.length > LABEL_MAX_BYTES) throw new CodecError('labelTooLong', `label of ${b.length} bytes (at most ${LABEL_MAX_BYTES})`);
  return b;
}

/** Bytes the header adds (memberlist label.go labelOverhead): none without a label. */
export function labelOverhead(label: Uint8Array): number {
  return label.length === 0 ? 0 : 2 + label.length;
}

export function labelHeader(label: Uint8Array): Uint8Array {
  if (label.length === 0) return label;
  if (label.length > LABEL_MAX_BYTES) throw new CodecError('labelTooLong', `label of ${label.length} bytes`);
  const out = new Uint8Array(2 + label.length);
  out[0] = MessageType.hasLabel;
  out[1] = label.length;
  out.set(label, 2);
  return out;
}

export function addLabel(buf: Uint8Array, label: Uint8Array): Uint8Array {
  if (label.length === 0) return buf;
  const h = labelHeader(label);
  const out = new Uint8Array(h.length + buf.length);
  out.set(h);
  out.set(buf, h.length);
  return out;
}

export type LabelSplit =
  | { readonly kind: 'label'; readonly label: Uint8Array; readonly rest: Uint8Array }
  | { readonly kind: 'none'; readonly rest: Uint8Array }
  /** Only from the stream reader: the header has started but is not complete yet. */
  | { readonly kind: 'incomplete' };

/**
 * Splits a label header off the front. `complete` says whether more bytes can still come (streams): a short
 * header is then incomplete, not malformed. Throws DecodeError('badLabel').
 */
export function splitLabel(buf: Uint8Array, complete: boolean): LabelSplit {
  if (buf.length === 0 || buf[0] !== MessageType.hasLabel) return { kind: 'none', rest: buf };
  if (buf.length < 2) {
    if (!complete) return { kind: 'incomplete' };
    throw new DecodeError('badLabel', 'label header truncated');
  }
  const size = buf[1] as number;
  if (size < 1) throw new DecodeError('badLabel', 'label header present with an empty label');
  if (buf.length < 2 + size) {
    if (!complete) return { kind: 'incomplete' };
    throw new DecodeError('badLabel', 'label header truncated');
  }
  return { kind: 'label', label: buf.subarray(2, 2 + size), rest: buf.subarray(2 + size) };
}

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
