/**
 * BGP community values and the Community object (metallb.io/v1beta1, api/v1beta1/community_types.go).
 * Syntax as internal/bgp/community New: "a:b" with two 16-bit fields (RFC 1997) or "large:a:b:c" with three
 * 32-bit fields (RFC 8092); anything else may be a Community alias, resolved in the cross-checks.
 */
import type { Community, CommunityValue, ObjectMeta } from '../types';
import type { ListItem, MapReader } from './field-reader';

const UINT16_MAX = 0xffff;
const UINT32_MAX = 0xffff_ffff;
const LARGE_MARKER = 'large';

export type CommunityParse =
  | { readonly ok: true; readonly value: CommunityValue }
  /** badValue: the shape of a community with a bad field; notACommunity: may be an alias. */
  | { readonly ok: false; readonly problem: 'badValue' | 'notACommunity'; readonly reason: string };

/** Go's strconv.ParseUint(s, 10, bits): decimal digits only, within range. */
function field(text: string, max: number): number | undefined {
  if (!/^[0-9]+$/.test(text)) return undefined;
  const n = Number(text);
  return n <= max ? n : undefined;
}

/** text is Go's String() of the value: "65000:100" or "1:2:3" (large communities print without the marker). */
export function parseCommunity(text: string): CommunityParse {
  const parts = text.split(':');
  const badSection = (part: string): CommunityParse => ({
    ok: false,
    problem: 'badValue',
    reason: `invalid community value: invalid section "${part}" of community "${text}"`,
  });
  if (parts.length === 2) {
    const [high, low] = parts as [string, string];
    const h = field(high, UINT16_MAX);
    if (h === undefined) return badSection(high);
    const l = field(low, UINT16_MAX);
    if (l === undefined) return badSection(low);
    return { ok: true, value: { kind: 'standard', text: `${h}:${l}`, value: h * 0x10000 + l } };
  }
  if (parts.length === 4) {
    const [marker, ...rest] = parts as [string, string, string, string];
    if (marker !== LARGE_MARKER) {
      return {
        ok: false,
        problem: 'badValue',
        reason: `invalid community value: invalid marker for large community, expected community to be of format large:<uint32>:<uint32>:<uint32> but got "${text}" instead`,
      };
    }
    const fields: number[] = [];
    for (const part of rest) {
      const n = field(part, UINT32_MAX);
      if (n === undefined) return badSection(part);
      fields.push(n);
    }
    const [global, local1, local2] = fields as [number, number, number];
    return { ok: true, value: { kind: 'large', text: `${global}:${local1}:${local2}`, global, local1, local2 } };
  }
  return { ok: false, problem: 'notACommunity', reason: `invalid community format: ${text}` };
}

/** Where each alias was written, for the cross-checks (duplicate names across objects, bad values). */
export interface CommunityAliasEntry {
  readonly name: ListItem<string>;
  readonly value: ListItem<string>;
}

export function readCommunity(top: MapReader, meta: ObjectMeta): { object: Community; entries: CommunityAliasEntry[] } {
  const spec = top.map('spec');
  const entries: CommunityAliasEntry[] = [];
  for (const item of spec?.mapList('communities') ?? []) {
    const r = item.value;
    const name = r.string('name', { required: true });
    const value = r.string('value', { required: true });
    if (name === undefined || value === undefined) continue;
    entries.push({
      name: { value: name, index: item.index, path: `${item.path}.name`, position: r.valuePosition('name') },
      value: { value, index: item.index, path: `${item.path}.value`, position: r.valuePosition('value') },
    });
  }
  return {
    object: {
      kind: 'Community',
      meta,
      communities: entries.map((e) => ({ name: e.name.value, value: e.value.value })),
    },
    entries,
  };
}
