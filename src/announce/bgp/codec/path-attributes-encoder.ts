/**
 * Encodes PathAttributes into the UPDATE's Path Attributes field. Order: MP_REACH_NLRI and MP_UNREACH_NLRI first
 * (RFC 7606 section 5.1, so a receiver can always locate the prefixes), then ascending type code (RFC 4271 5:
 * "SHOULD order path attributes ... in ascending order of attribute type"). Flags come from each attribute's
 * category; the Extended Length bit is set when a value exceeds 255 octets (RFC 4271 4.3), and kept for raw
 * attributes that arrived with it so a decoded attribute re-encodes byte for byte.
 */
import { Origin, type PathAttributes } from '../bgp-messages';
import { ipToBytes } from '../../../ip';
import { AttributeFlag, ATTRIBUTE_CATEGORY, ATTRIBUTE_FLAG_BITS, AttributeType, flagsFor } from './attribute-types';
import { encodeAsPath, needsAs4Path } from './as-path-codec';
import { ByteWriter } from './byte-writer';
import { BgpEncodeError, BgpEncodeErrorCode, type CodecOptions } from './codec-errors';
import { encodeMpReach, encodeMpUnreach } from './mp-nlri-codec';

interface EncodedAttribute {
  readonly flags: number;
  readonly type: number;
  readonly value: Uint8Array;
}

/** One-octet lengths hold up to 255; longer values need the 2-octet Extended Length (at most 65535). */
const MAX_SHORT_LENGTH = 0xff;
const MAX_EXTENDED_LENGTH = 0xffff;

function fieldError(reason: string): BgpEncodeError {
  return new BgpEncodeError(BgpEncodeErrorCode.invalidField, reason);
}

function uint32(value: number, what: string): number {
  if (!Number.isInteger(value) || value < 0 || value > 0xffff_ffff) throw fieldError(`${what} ${value} is outside 0..4294967295`);
  return value;
}

function uint32List(values: readonly number[], what: string): Uint8Array {
  const w = new ByteWriter();
  for (const v of values) w.u32(uint32(v, what));
  return w.finish();
}

function known(type: number, value: Uint8Array): EncodedAttribute {
  return { flags: flagsFor(ATTRIBUTE_CATEGORY[type] ?? 'optionalTransitive'), type, value };
}

/** The attributes mlb models, in no particular order. */
function modelled(a: PathAttributes, options: CodecOptions): EncodedAttribute[] {
  const out: EncodedAttribute[] = [];
  if (a.mpReach) out.push(known(AttributeType.mpReachNlri, encodeMpReach(a.mpReach)));
  if (a.mpUnreach) out.push(known(AttributeType.mpUnreachNlri, encodeMpUnreach(a.mpUnreach)));
  if (a.origin !== undefined) {
    const code = Origin[a.origin];
    if (code === undefined) throw fieldError(`ORIGIN ${String(a.origin)}`);
    out.push(known(AttributeType.origin, new Uint8Array([code])));
  }
  if (a.asPath) {
    out.push(known(AttributeType.asPath, encodeAsPath(a.asPath, options.fourOctetAsn ? 4 : 2)));
    // RFC 6793 4.2.2: towards a 2-octet peer, ASNs that do not fit travel in AS4_PATH beside AS_TRANS.
    const callerSendsAs4Path = (a.other ?? []).some((o) => o.type === AttributeType.as4Path);
    if (!options.fourOctetAsn && needsAs4Path(a.asPath) && !callerSendsAs4Path) {
      out.push(known(AttributeType.as4Path, encodeAsPath(a.asPath, 4)));
    }
  }
  if (a.nextHop) {
    if (a.nextHop.family !== 4) throw fieldError('NEXT_HOP carries IPv4; an IPv6 next hop goes in mpReach');
    out.push(known(AttributeType.nextHop, ipToBytes(a.nextHop)));
  }
  if (a.med !== undefined) out.push(known(AttributeType.multiExitDisc, uint32List([a.med], 'MED')));
  if (a.localPref !== undefined) out.push(known(AttributeType.localPref, uint32List([a.localPref], 'LOCAL_PREF')));
  if (a.communities && a.communities.length > 0) out.push(known(AttributeType.communities, uint32List(a.communities, 'community')));
  if (a.largeCommunities && a.largeCommunities.length > 0) {
    out.push(known(AttributeType.largeCommunity, uint32List(a.largeCommunities.flat(), 'large community part')));
  }
  return out;
}

/** Attributes kept raw; a type that is also modelled collides in encodePathAttributes and is refused. */
function rawAttributes(a: PathAttributes): EncodedAttribute[] {
  const out: EncodedAttribute[] = [];
  const seen = new Set<number>();
  for (const o of a.other ?? []) {
    if (!Number.isInteger(o.type) || o.type < 0 || o.type > 0xff) throw fieldError(`attribute type ${o.type}`);
    if (seen.has(o.type)) throw fieldError(`attribute ${o.type} listed twice in other`);
    seen.add(o.type);
    out.push({ flags: o.flags & ATTRIBUTE_FLAG_BITS, type: o.type, value: o.value });
  }
  return out;
}

/** MP_REACH/MP_UNREACH, modelled or (another family) raw in other. */
function isMpType(type: number): boolean {
  return type === AttributeType.mpReachNlri || type === AttributeType.mpUnreachNlri;
}

/** Sort key: MP attributes first (RFC 7606 5.1), then by type code. */
function orderKey(type: number): number {
  return isMpType(type) ? type - 0x100 : type;
}

export function encodePathAttributes(attributes: PathAttributes, options: CodecOptions): Uint8Array {
  const all = [...modelled(attributes, options), ...rawAttributes(attributes)];
  const types = new Set<number>();
  for (const attribute of all) {
    // RFC 7606 section 3 item g: a receiver discards repeats (or resets on a repeated MP attribute), so never send one.
    if (types.has(attribute.type)) throw fieldError(`attribute ${attribute.type} is both modelled and in other`);
    types.add(attribute.type);
  }
  all.sort((x, y) => orderKey(x.type) - orderKey(y.type));
  const writer = new ByteWriter();
  for (const attribute of all) {
    const length = attribute.value.length;
    if (length > MAX_EXTENDED_LENGTH)
      throw new BgpEncodeError(BgpEncodeErrorCode.tooLarge, `attribute ${attribute.type} of ${length} octets`);
    const extended = length > MAX_SHORT_LENGTH || (attribute.flags & AttributeFlag.extendedLength) !== 0;
    const flags = extended ? attribute.flags | AttributeFlag.extendedLength : attribute.flags & ~AttributeFlag.extendedLength;
    writer.u8(flags).u8(attribute.type);
    if (extended) writer.u16(length);
    else writer.u8(length);
    writer.bytes(attribute.value);
  }
  return writer.finish();
}
