/**
 * The AS_PATH attribute value (RFC 4271 4.3 and 5.1.2; 4-octet form RFC 6793): a run of segments
 *
 *   +-----------------+-----------------+---------------------------------+
 *   | Segment type(1) | Segment len (1) | len ASNs of 2 or 4 octets each  |
 *   +-----------------+-----------------+---------------------------------+
 *
 * with type 1 AS_SET and 2 AS_SEQUENCE. ASNs are 4 octets when both speakers advertised the 4-octet ASN
 * capability, 2 otherwise (then AS4_PATH carries the real path, RFC 6793 4.2.2). The same code reads AS4_PATH,
 * which is always 4-octet.
 *
 * Malformed, per RFC 7606 section 7.2: an unrecognized segment type (the confederation types 3 and 4 included:
 * mlb is never a confederation member, RFC 5065 section 5), a segment running past the attribute, octets left
 * after the last segment, or a segment of length zero; and, per RFC 7607 section 2, any ASN of 0.
 */
import { AS_TRANS, type AsPathSegment } from '../bgp-messages';
import { BgpEncodeError, BgpEncodeErrorCode } from './codec-errors';
import { ByteWriter, readUint } from './byte-writer';

const AsPathSegmentType = { set: 1, sequence: 2 } as const;
/** The segment length is one octet; longer sequences are split into consecutive segments (RFC 4271 5.1.2). */
const MAX_SEGMENT_ASNS = 255;
const MAX_TWO_OCTET_ASN = 0xffff;
const MAX_FOUR_OCTET_ASN = 0xffff_ffff;

export type AsnWidth = 2 | 4;

export type AsPathDecoded = { readonly ok: true; readonly segments: AsPathSegment[] } | { readonly ok: false; readonly reason: string };

export function decodeAsPath(value: Uint8Array, width: AsnWidth): AsPathDecoded {
  const segments: AsPathSegment[] = [];
  let offset = 0;
  while (offset < value.length) {
    if (offset + 2 > value.length) return { ok: false, reason: 'segment header truncated' };
    const typeCode = value[offset] as number;
    const count = value[offset + 1] as number;
    const type = typeCode === AsPathSegmentType.set ? 'set' : typeCode === AsPathSegmentType.sequence ? 'sequence' : undefined;
    if (type === undefined) return { ok: false, reason: `segment type ${typeCode}` };
    if (count === 0) return { ok: false, reason: 'segment of length zero' };
    const end = offset + 2 + count * width;
    if (end > value.length) return { ok: false, reason: `segment of ${count} ASNs overruns the attribute` };
    const asns: number[] = [];
    for (let o = offset + 2; o < end; o += width) {
      const asn = readUint(value, o, width);
      if (asn === 0) return { ok: false, reason: 'AS 0 in the path (RFC 7607)' };
      asns.push(asn);
    }
    segments.push({ type, asns });
    offset = end;
  }
  return { ok: true, segments };
}

/**
 * Encodes segments with ASNs of `width` octets. With width 2, ASNs above 65535 become AS_TRANS (RFC 6793 4.2.2);
 * the caller then also sends AS4_PATH (see needsAs4Path).
 */
export function encodeAsPath(segments: readonly AsPathSegment[], width: AsnWidth): Uint8Array {
  const writer = new ByteWriter();
  for (const segment of segments) {
    if (segment.asns.length === 0) throw fieldError('an AS_PATH segment needs at least one ASN (RFC 7606 7.2)');
    if (segment.type === 'set' && segment.asns.length > MAX_SEGMENT_ASNS) {
      throw fieldError(`an AS_SET of ${segment.asns.length} ASNs cannot be split without changing its meaning`);
    }
    for (let start = 0; start < segment.asns.length; start += MAX_SEGMENT_ASNS) {
      const chunk = segment.asns.slice(start, start + MAX_SEGMENT_ASNS);
      writer.u8(AsPathSegmentType[segment.type]).u8(chunk.length);
      for (const asn of chunk) {
        if (!Number.isInteger(asn) || asn < 1 || asn > MAX_FOUR_OCTET_ASN)
          throw fieldError(`ASN ${asn} is outside 1..${MAX_FOUR_OCTET_ASN}`);
        if (width === 4) writer.u32(asn);
        else writer.u16(asn > MAX_TWO_OCTET_ASN ? AS_TRANS : asn);
      }
    }
  }
  return writer.finish();
}

/** RFC 6793 4.2.2: towards a 2-octet peer, AS4_PATH is sent when the path holds an ASN that does not fit. */
export function needsAs4Path(segments: readonly AsPathSegment[]): boolean {
  return segments.some((s) => s.asns.some((asn) => asn > MAX_TWO_OCTET_ASN));
}

function fieldError(reason: string): BgpEncodeError {
  return new BgpEncodeError(BgpEncodeErrorCode.invalidField, reason);
}
