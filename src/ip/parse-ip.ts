import { type IP, isV4MappedValue } from './ip-address';

/**
 * Parses an IP address with the rules of Go's net.ParseIP as MetalLB v0.16 is built (Go >= 1.22, netip-based):
 * - IPv4: exactly four decimal fields 0-255, no leading zeros ("010.0.0.1" is refused since Go 1.17);
 * - IPv6: up to eight groups of 1-4 hex digits, in either case, one "::" standing for at least one zero group,
 *   an optional trailing dotted IPv4;
 *   no zone ("%eth0"), no brackets, no prefix;
 * - surrounding whitespace is not trimmed (callers decide; MetalLB trims range ends, not CIDRs).
 * Returns undefined for anything Go would return nil for. IPv4-mapped IPv6 becomes IPv4, as Go's To4 does.
 */
export function parseIP(text: string): IP | undefined {
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '.') return parseIPv4(text);
    if (c === ':') return parseIPv6(text);
  }
  return undefined;
}

const IPV4_FIELDS = 4;
const IPV4_FIELD_MAX = 255;
const IPV6_GROUPS = 8;
const IPV6_GROUP_MAX_DIGITS = 4;

/** Parses exactly a dotted quad; undefined otherwise. */
export function parseIPv4(text: string): IP | undefined {
  const value = parseIPv4Value(text);
  return value === undefined ? undefined : { family: 4, value: BigInt(value) };
}

function parseIPv4Value(text: string): number | undefined {
  const fields = text.split('.');
  if (fields.length !== IPV4_FIELDS) return undefined;
  let value = 0;
  for (const field of fields) {
    if (!/^[0-9]{1,3}$/.test(field)) return undefined;
    if (field.length > 1 && field[0] === '0') return undefined;
    const n = Number(field);
    if (n > IPV4_FIELD_MAX) return undefined;
    value = value * 256 + n;
  }
  return value;
}

/** Parses an IPv6 address (RFC 4291 section 2.2 text forms). */
function parseIPv6(text: string): IP | undefined {
  const doubleColon = text.indexOf('::');
  if (doubleColon !== -1 && text.indexOf('::', doubleColon + 1) !== -1) return undefined;
  const head = doubleColon === -1 ? text : text.slice(0, doubleColon);
  const tail = doubleColon === -1 ? '' : text.slice(doubleColon + 2);
  const headGroups = parseGroups(head, doubleColon === -1);
  const tailGroups = parseGroups(tail, true);
  if (!headGroups || !tailGroups) return undefined;
  const total = headGroups.length + tailGroups.length;
  if (doubleColon === -1 ? total !== IPV6_GROUPS : total > IPV6_GROUPS - 1) return undefined;
  const groups = [...headGroups, ...new Array<number>(IPV6_GROUPS - total).fill(0), ...tailGroups];
  let value = 0n;
  for (const g of groups) value = (value << 16n) | BigInt(g);
  if (isV4MappedValue(value)) return { family: 4, value: value & 0xffff_ffffn };
  return { family: 6, value };
}

/** Parses "a:b:c" (possibly empty) into 16-bit groups, allowing a trailing dotted quad where it may end the address. */
function parseGroups(part: string, mayEndWithV4: boolean): number[] | undefined {
  if (part === '') return [];
  const fields = part.split(':');
  const groups: number[] = [];
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i] as string;
    if (i === fields.length - 1 && mayEndWithV4 && field.includes('.')) {
      const v4 = parseIPv4Value(field);
      if (v4 === undefined) return undefined;
      groups.push(Math.floor(v4 / 0x10000), v4 % 0x10000);
      return groups;
    }
    if (field.length === 0 || field.length > IPV6_GROUP_MAX_DIGITS) return undefined;
    if (!/^[0-9a-fA-F]+$/.test(field)) return undefined;
    groups.push(parseInt(field, 16));
  }
  return groups;
}
