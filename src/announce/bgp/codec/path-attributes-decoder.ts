/**
 * Decodes the UPDATE's Path Attributes field (RFC 4271 4.3) with RFC 7606's revised error handling: each
 * malformed attribute gets the weakest action that is still safe, and the strongest action found wins (RFC 7606
 * section 3 item f):
 *   session reset     a BgpDecodeError (the NOTIFICATION; the session closes)
 *   treat-as-withdraw the UPDATE's prefixes are withdrawn, the session stays up
 *   attribute discard the attribute is dropped, the rest of the UPDATE stands
 * Each attribute is
 *
 *   +----------------+----------------+---------------------------+------------------+
 *   | Flags (1)      | Type code (1)  | Length (1, or 2 if E set) | Value (Length)   |
 *   +----------------+----------------+---------------------------+------------------+
 */
import { Origin, UpdateErrorSubcode, type LargeCommunity, type OriginName, type PathAttributes } from '../bgp-messages';
import { ipFromBytes } from '../../../ip';
import {
  AttributeFlag,
  ATTRIBUTE_CATEGORY,
  ATTRIBUTE_FLAG_BITS,
  AttributeType,
  flagsConflict,
  isUnrecognizedWellKnown,
} from './attribute-types';
import { decodeAsPath } from './as-path-codec';
import { readUint } from './byte-writer';
import { malformedAttributeList, updateError, type BgpDecodeError, type CodecOptions } from './codec-errors';
import { decodeMpReach, decodeMpUnreach } from './mp-nlri-codec';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
type OtherAttribute = NonNullable<PathAttributes['other']>[number];
interface Builder extends Mutable<Omit<PathAttributes, 'other'>> {
  other: OtherAttribute[];
}

/** One attribute's fate: undefined when it was decoded into the builder. */
type Verdict =
  | undefined
  | { readonly action: 'withdraw' | 'discard'; readonly reason: string }
  | { readonly action: 'reset'; readonly error: BgpDecodeError };

export type AttributesDecoded =
  | {
      readonly ok: true;
      readonly attributes: PathAttributes;
      /** Why the UPDATE is treat-as-withdraw (the first cause), if it is. */
      readonly treatAsWithdraw?: string;
      readonly discarded: { readonly type: number; readonly reason: string }[];
      /** Type codes present (including malformed ones), for the mandatory-attribute check. */
      readonly present: ReadonlySet<number>;
    }
  | { readonly ok: false; readonly error: BgpDecodeError };

const ORIGIN_BYTES = 1;
const IPV4_BYTES = 4;
const UINT32_BYTES = 4;
const COMMUNITY_BYTES = 4;
const LARGE_COMMUNITY_BYTES = 12;
const EXTENDED_COMMUNITY_BYTES = 8;
const AGGREGATOR_BYTES_2 = 6;
const AGGREGATOR_BYTES_4 = 8;
const ORIGIN_NAMES = Object.keys(Origin) as OriginName[];
/** 0.0.0.0/8 "this network" and 224.0.0.0/3 (multicast and class E, broadcast included) are no host's address. */
const FIRST_OCTET_NOT_HOST = (octet: number): boolean => octet === 0 || octet >= 224;

const withdraw = (reason: string): Verdict => ({ action: 'withdraw', reason });
const discard = (reason: string): Verdict => ({ action: 'discard', reason });

function uint32s(value: Uint8Array, per: number): number[] {
  const out: number[] = [];
  for (let o = 0; o < value.length; o += per) out.push(readUint(value, o, 4));
  return out;
}

/** A non-empty whole number of `size`-octet items (RFC 7606 7.8, 7.10, 7.14; RFC 8092 section 6). */
function isListOf(value: Uint8Array, size: number): boolean {
  return value.length > 0 && value.length % size === 0;
}

function keepRaw(b: Builder, flags: number, type: number, value: Uint8Array): Verdict {
  b.other.push({ flags, type, value: value.slice() });
  return undefined;
}

type ValueDecoder = (value: Uint8Array, b: Builder, options: CodecOptions, flags: number, raw: Uint8Array) => Verdict;

/** Per recognized type: how its value is read and what a malformed one costs (RFC 7606 section 7 unless noted). */
const DECODERS: Readonly<Record<number, ValueDecoder>> = {
  // 7.1: wrong length or undefined value -> treat-as-withdraw.
  [AttributeType.origin]: (v, b) => {
    const name = v.length === ORIGIN_BYTES ? ORIGIN_NAMES[v[0] as number] : undefined;
    if (name === undefined) return withdraw(v.length === ORIGIN_BYTES ? `ORIGIN value ${v[0]}` : `ORIGIN of ${v.length} octets`);
    b.origin = name;
    return undefined;
  },
  // 7.2 (and RFC 7607 for AS 0): malformed AS_PATH -> treat-as-withdraw.
  [AttributeType.asPath]: (v, b, options) => {
    const path = decodeAsPath(v, options.fourOctetAsn ? 4 : 2);
    if (!path.ok) return withdraw(`AS_PATH: ${path.reason}`);
    b.asPath = path.segments;
    return undefined;
  },
  // 7.3: length other than 4, or not a host address (RFC 4271 6.3 syntactic check) -> treat-as-withdraw.
  [AttributeType.nextHop]: (v, b) => {
    if (v.length !== IPV4_BYTES) return withdraw(`NEXT_HOP of ${v.length} octets`);
    if (FIRST_OCTET_NOT_HOST(v[0] as number)) return withdraw(`NEXT_HOP ${v.join('.')} is not a host address`);
    b.nextHop = ipFromBytes(v);
    return undefined;
  },
  // 7.4: MULTI_EXIT_DISC length other than 4 -> treat-as-withdraw.
  [AttributeType.multiExitDisc]: (v, b) => {
    if (v.length !== UINT32_BYTES) return withdraw(`MULTI_EXIT_DISC of ${v.length} octets`);
    b.med = readUint(v, 0, 4);
    return undefined;
  },
  // 7.5: length other than 4 -> treat-as-withdraw. (Discarding LOCAL_PREF from an eBGP peer is the session's
  // call: the codec does not know the peer's AS.)
  [AttributeType.localPref]: (v, b) => {
    if (v.length !== UINT32_BYTES) return withdraw(`LOCAL_PREF of ${v.length} octets`);
    b.localPref = readUint(v, 0, 4);
    return undefined;
  },
  // 7.6: ATOMIC_AGGREGATE length other than 0 -> attribute discard.
  [AttributeType.atomicAggregate]: (v, b, _o, flags) =>
    v.length === 0 ? keepRaw(b, flags, AttributeType.atomicAggregate, v) : discard(`ATOMIC_AGGREGATE of ${v.length} octets`),
  // 7.7: AGGREGATOR length other than 6 (2-octet session) or 8 (4-octet session) -> attribute discard.
  [AttributeType.aggregator]: (v, b, o, flags) => {
    const expected = o.fourOctetAsn ? AGGREGATOR_BYTES_4 : AGGREGATOR_BYTES_2;
    return v.length === expected ? keepRaw(b, flags, AttributeType.aggregator, v) : discard(`AGGREGATOR of ${v.length} octets`);
  },
  // 7.8: COMMUNITIES length zero or not a multiple of 4 -> treat-as-withdraw.
  [AttributeType.communities]: (v, b) => {
    if (!isListOf(v, COMMUNITY_BYTES)) return withdraw(`COMMUNITIES of ${v.length} octets`);
    b.communities = uint32s(v, COMMUNITY_BYTES);
    return undefined;
  },
  // 7.9: ORIGINATOR_ID length other than 4 -> treat-as-withdraw.
  [AttributeType.originatorId]: (v, b, _o, flags) =>
    v.length === IPV4_BYTES ? keepRaw(b, flags, AttributeType.originatorId, v) : withdraw(`ORIGINATOR_ID of ${v.length} octets`),
  // 7.10: CLUSTER_LIST length zero or not a multiple of 4 -> treat-as-withdraw.
  [AttributeType.clusterList]: (v, b, _o, flags) =>
    isListOf(v, IPV4_BYTES) ? keepRaw(b, flags, AttributeType.clusterList, v) : withdraw(`CLUSTER_LIST of ${v.length} octets`),
  // 7.11 and RFC 4760 section 7: the NLRI cannot be located -> session reset, Optional Attribute Error.
  [AttributeType.mpReachNlri]: (v, b, _o, flags, raw) => {
    const decoded = decodeMpReach(v);
    if (decoded.kind === 'malformed')
      return { action: 'reset', error: updateError(UpdateErrorSubcode.optionalAttributeError, decoded.reason, raw) };
    if (decoded.kind === 'unsupportedFamily') return keepRaw(b, flags, AttributeType.mpReachNlri, v);
    b.mpReach = decoded.value;
    return undefined;
  },
  [AttributeType.mpUnreachNlri]: (v, b, _o, flags, raw) => {
    const decoded = decodeMpUnreach(v);
    if (decoded.kind === 'malformed')
      return { action: 'reset', error: updateError(UpdateErrorSubcode.optionalAttributeError, decoded.reason, raw) };
    if (decoded.kind === 'unsupportedFamily') return keepRaw(b, flags, AttributeType.mpUnreachNlri, v);
    b.mpUnreach = decoded.value;
    return undefined;
  },
  // 7.14: EXTENDED_COMMUNITIES length zero or not a multiple of 8 -> treat-as-withdraw.
  [AttributeType.extendedCommunities]: (v, b, _o, flags) =>
    isListOf(v, EXTENDED_COMMUNITY_BYTES)
      ? keepRaw(b, flags, AttributeType.extendedCommunities, v)
      : withdraw(`EXTENDED_COMMUNITIES of ${v.length} octets`),
  // RFC 6793 section 6 and 4.1: AS4_PATH from a 4-octet speaker, or malformed -> attribute discard. A valid
  // one is kept raw: mlb ignores received routes, so the 4.2.3 merge with AS_PATH is never needed.
  [AttributeType.as4Path]: (v, b, o, flags) => {
    if (o.fourOctetAsn) return discard('AS4_PATH from a 4-octet ASN speaker');
    const path = decodeAsPath(v, 4);
    return path.ok ? keepRaw(b, flags, AttributeType.as4Path, v) : discard(`AS4_PATH: ${path.reason}`);
  },
  [AttributeType.as4Aggregator]: (v, b, o, flags) => {
    if (o.fourOctetAsn) return discard('AS4_AGGREGATOR from a 4-octet ASN speaker');
    return v.length === AGGREGATOR_BYTES_4
      ? keepRaw(b, flags, AttributeType.as4Aggregator, v)
      : discard(`AS4_AGGREGATOR of ${v.length} octets`);
  },
  // RFC 8092 section 6: LARGE_COMMUNITY length zero or not a multiple of 12 -> treat-as-withdraw.
  [AttributeType.largeCommunity]: (v, b) => {
    if (!isListOf(v, LARGE_COMMUNITY_BYTES)) return withdraw(`LARGE_COMMUNITY of ${v.length} octets`);
    const values = uint32s(v, UINT32_BYTES);
    const list: LargeCommunity[] = [];
    for (let i = 0; i < values.length; i += 3) list.push([values[i] as number, values[i + 1] as number, values[i + 2] as number]);
    b.largeCommunities = list;
    return undefined;
  },
};

const MP_TYPES: ReadonlySet<number> = new Set([AttributeType.mpReachNlri, AttributeType.mpUnreachNlri]);

export function decodePathAttributes(bytes: Uint8Array, options: CodecOptions): AttributesDecoded {
  const b: Builder = { other: [] };
  const present = new Set<number>();
  const discarded: { type: number; reason: string }[] = [];
  let treatAsWithdraw: string | undefined;
  const note = (verdict: Verdict, type: number): void => {
    if (verdict?.action === 'withdraw') treatAsWithdraw ??= verdict.reason;
    else if (verdict?.action === 'discard') discarded.push({ type, reason: verdict.reason });
  };
  let offset = 0;
  while (offset < bytes.length) {
    const flags = bytes[offset] as number;
    const lengthBytes = flags & AttributeFlag.extendedLength ? 2 : 1;
    // RFC 7606 section 4: too few octets for an attribute header -> treat-as-withdraw; the Total Path Attribute
    // Length still locates the NLRI.
    if (offset + 2 + lengthBytes > bytes.length) {
      note(withdraw(`${bytes.length - offset} stray octets after the last attribute`), -1);
      break;
    }
    const type = bytes[offset + 1] as number;
    const length = readUint(bytes, offset + 2, lengthBytes);
    const valueStart = offset + 2 + lengthBytes;
    const end = valueStart + length;
    const raw = bytes.subarray(offset, Math.min(end, bytes.length));
    offset = end;
    if (end > bytes.length) {
      // RFC 7606 section 4: an attribute overrunning the field -> treat-as-withdraw, unless it is MP_REACH or
      // MP_UNREACH, whose prefixes then cannot be read (section 3 item h -> session reset, RFC 4760 section 7).
      if (MP_TYPES.has(type))
        return {
          ok: false,
          error: updateError(UpdateErrorSubcode.optionalAttributeError, `attribute ${type} overruns the attribute field`, raw),
        };
      note(withdraw(`attribute ${type} claims ${length} octets, ${bytes.length - valueStart} remain`), type);
      break;
    }
    if (present.has(type)) {
      // RFC 7606 section 3 item g: a repeated MP_REACH/MP_UNREACH is Malformed Attribute List; any other repeat
      // is discarded and the first occurrence stands.
      if (MP_TYPES.has(type)) return { ok: false, error: malformedAttributeList(`attribute ${type} appears twice`) };
      discarded.push({ type, reason: `repeated attribute ${type}` });
      continue;
    }
    present.add(type);
    const verdict = decodeAttribute(bytes.subarray(valueStart, end), b, options, flags & ATTRIBUTE_FLAG_BITS, type, raw);
    if (verdict?.action === 'reset') return { ok: false, error: verdict.error };
    note(verdict, type);
  }
  const { other, ...known } = b;
  // Raw attributes in type order, the order the encoder writes them (RFC 4271 5), so decoding is canonical.
  other.sort((x, y) => x.type - y.type);
  const attributes: PathAttributes = other.length > 0 ? { ...known, other } : known;
  return { ok: true, attributes, ...(treatAsWithdraw === undefined ? {} : { treatAsWithdraw }), discarded, present };
}

function decodeAttribute(value: Uint8Array, b: Builder, options: CodecOptions, flags: number, type: number, raw: Uint8Array): Verdict {
  // RFC 4271 6.3: an unrecognized well-known attribute (RFC 7606 leaves this one a session reset).
  if (isUnrecognizedWellKnown(flags, type)) {
    return {
      action: 'reset',
      error: updateError(UpdateErrorSubcode.unrecognizedWellKnownAttribute, `unrecognized well-known attribute ${type}`, raw),
    };
  }
  const category = ATTRIBUTE_CATEGORY[type];
  const decoder = DECODERS[type];
  if (category === undefined || decoder === undefined) return keepRaw(b, flags, type, value);
  // RFC 7606 section 3 item c (revising RFC 4271 6.3's Attribute Flags Error): Optional/Transitive bits in
  // conflict with the type -> treat-as-withdraw. MP_REACH/MP_UNREACH are still decoded so their prefixes can be
  // withdrawn (section 3 item h); any stronger error in them wins.
  if (flagsConflict(flags, category)) {
    const reason = `attribute ${type} with flags 0x${flags.toString(16)} (Attribute Flags Error, 3/${UpdateErrorSubcode.attributeFlagsError})`;
    if (MP_TYPES.has(type)) {
      const inner = decoder(value, b, options, flags, raw);
      if (inner?.action === 'reset') return inner;
    }
    return withdraw(reason);
  }
  return decoder(value, b, options, flags, raw);
}
