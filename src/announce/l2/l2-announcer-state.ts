/**
 * The L2 announcer's core as a reconciler: (state, desired) -> { state, effects }. The daemon hands it the full
 * set of (IP, interfaces) this node owns, every time; the reconciler says what to open, join, start, stop, leave
 * and close so that the sockets match. Applying the same desired set twice yields no effects, so a restart, a
 * missed or a duplicated event changes nothing.
 *
 * Resources derived from what is announced (nothing else is stored, so they cannot drift):
 * - an ARP responder on an interface while it has an IPv4 address to answer for, an NDP responder while it has
 *   an IPv6 one (MetalLB logs createARPResponder / createNDPResponder / deleteARPResponder / deleteNDPResponder;
 *   it opens them for every eligible interface, mlb only where something is announced);
 * - the solicited-node group of every announced IPv6 address on its interface, refcounted, since addresses with
 *   the same low 24 bits share one group (MetalLB ndpResponder.Watch / Unwatch);
 * - a gratuitous schedule per (IP, interface) newly announced.
 *
 * Effect order: releases before acquisitions (stop, leave, delete; then create, join, start), each group sorted
 * by interface then IP, so the output is deterministic and a socket is open before its first burst.
 */
import { compareIP, type IP } from '../../ip';
import { ipKey, ownedIPSet, type OwnedIPs } from './l2-interface';
import type { MacAddress } from './mac-address';
import { solicitedNodeAddress, solicitedNodeMAC } from './solicited-node';

/** Why an effect happens: a stable, append-only table (log fields, metrics labels). */
export const L2EffectReason = {
  /** The first IPv4 (ARP) or IPv6 (NDP) address announced on the interface. */
  firstAddressOnInterface: 'firstAddressOnInterface',
  /** The last address of that family on the interface was withdrawn. */
  lastAddressOnInterface: 'lastAddressOnInterface',
  /** The first announced IPv6 address whose solicited-node group this is. */
  firstAddressInGroup: 'firstAddressInGroup',
  /** No announced IPv6 address on the interface maps to this group any more. */
  lastAddressInGroup: 'lastAddressInGroup',
  /** The IP was not announced anywhere before: this node just became its owner. */
  ipGained: 'ipGained',
  /** The IP was already announced on other interfaces; this interface is new for it. */
  interfaceAdded: 'interfaceAdded',
  /** The IP is no longer announced anywhere by this node. */
  ipWithdrawn: 'ipWithdrawn',
  /** The IP stays announced elsewhere but not on this interface. */
  interfaceRemoved: 'interfaceRemoved',
} as const;
export type L2EffectReason = keyof typeof L2EffectReason;

export type ResponderKind = 'createARPResponder' | 'deleteARPResponder' | 'createNDPResponder' | 'deleteNDPResponder';

export type L2Effect =
  | { readonly kind: ResponderKind; readonly interface: string; readonly reason: L2EffectReason }
  | {
      readonly kind: 'joinSolicitedNodeGroup' | 'leaveSolicitedNodeGroup';
      readonly interface: string;
      /** ff02::1:ff00:0/104 + low 24 bits */
      readonly group: IP;
      /** 33:33:ff:XX:XX:XX, the link-layer group the packet socket joins. */
      readonly mac: MacAddress;
      readonly reason: L2EffectReason;
    }
  | { readonly kind: 'startGratuitous' | 'stopGratuitous'; readonly interface: string; readonly ip: IP; readonly reason: L2EffectReason };

/** One IP this node should announce, on these interfaces (names); an empty list announces nothing. */
export interface DesiredAnnouncement {
  readonly ip: IP;
  readonly interfaces: readonly string[];
}

export interface L2AnnouncerState {
  /** ipKey -> the IP and the interfaces it is announced on. */
  readonly announced: ReadonlyMap<string, { readonly ip: IP; readonly interfaces: ReadonlySet<string> }>;
}

export const EMPTY_L2_ANNOUNCER_STATE: L2AnnouncerState = { announced: new Map() };

export interface ReconcileResult {
  readonly state: L2AnnouncerState;
  readonly effects: readonly L2Effect[];
}

export function reconcileL2(state: L2AnnouncerState, desired: Iterable<DesiredAnnouncement>): ReconcileResult {
  const next = normalize(desired);
  const before = deriveResources(state);
  const after = deriveResources(next);
  const effects: L2Effect[] = [];

  // Releases.
  for (const { ip, iface } of sortedPairs(state)) {
    if (next.announced.get(ipKey(ip))?.interfaces.has(iface)) continue;
    const reason = next.announced.has(ipKey(ip)) ? 'interfaceRemoved' : 'ipWithdrawn';
    effects.push({ kind: 'stopGratuitous', interface: iface, ip, reason });
  }
  for (const [key, g] of sortedEntries(before.groups)) {
    if (!after.groups.has(key)) effects.push(groupEffect('leaveSolicitedNodeGroup', g.iface, g.group, 'lastAddressInGroup'));
  }
  for (const [iface, fam] of sortedEntries(before.families)) {
    const now = after.families.get(iface);
    if (fam.v4 && !now?.v4) effects.push({ kind: 'deleteARPResponder', interface: iface, reason: 'lastAddressOnInterface' });
    if (fam.v6 && !now?.v6) effects.push({ kind: 'deleteNDPResponder', interface: iface, reason: 'lastAddressOnInterface' });
  }

  // Acquisitions.
  for (const [iface, fam] of sortedEntries(after.families)) {
    const was = before.families.get(iface);
    if (fam.v4 && !was?.v4) effects.push({ kind: 'createARPResponder', interface: iface, reason: 'firstAddressOnInterface' });
    if (fam.v6 && !was?.v6) effects.push({ kind: 'createNDPResponder', interface: iface, reason: 'firstAddressOnInterface' });
  }
  for (const [key, g] of sortedEntries(after.groups)) {
    if (!before.groups.has(key)) effects.push(groupEffect('joinSolicitedNodeGroup', g.iface, g.group, 'firstAddressInGroup'));
  }
  for (const { ip, iface } of sortedPairs(next)) {
    if (state.announced.get(ipKey(ip))?.interfaces.has(iface)) continue;
    const reason = state.announced.has(ipKey(ip)) ? 'interfaceAdded' : 'ipGained';
    effects.push({ kind: 'startGratuitous', interface: iface, ip, reason });
  }
  return { state: next, effects };
}

/** The addresses the responders on `interfaceName` answer for. */
export function ownedOn(state: L2AnnouncerState, interfaceName: string): OwnedIPs {
  const ips: IP[] = [];
  for (const a of state.announced.values()) if (a.interfaces.has(interfaceName)) ips.push(a.ip);
  return ownedIPSet(ips);
}

/** Every (IP, interface) announced, sorted by interface then IP. */
export function announcedPairs(state: L2AnnouncerState): { ip: IP; iface: string }[] {
  return sortedPairs(state);
}

function normalize(desired: Iterable<DesiredAnnouncement>): L2AnnouncerState {
  const announced = new Map<string, { ip: IP; interfaces: Set<string> }>();
  for (const d of desired) {
    if (d.interfaces.length === 0) continue;
    const key = ipKey(d.ip);
    const entry = announced.get(key) ?? { ip: d.ip, interfaces: new Set<string>() };
    for (const i of d.interfaces) entry.interfaces.add(i);
    announced.set(key, entry);
  }
  return { announced };
}

interface Resources {
  readonly families: Map<string, { v4: boolean; v6: boolean }>;
  /** `${iface}|${group}` -> the group; presence is what matters, the refcount is implicit in the derivation. */
  readonly groups: Map<string, { iface: string; group: IP }>;
}

function deriveResources(state: L2AnnouncerState): Resources {
  const families = new Map<string, { v4: boolean; v6: boolean }>();
  const groups = new Map<string, { iface: string; group: IP }>();
  for (const { ip, interfaces } of state.announced.values()) {
    for (const iface of interfaces) {
      const fam = families.get(iface) ?? { v4: false, v6: false };
      if (ip.family === 4) fam.v4 = true;
      else fam.v6 = true;
      families.set(iface, fam);
      if (ip.family === 6) {
        const group = solicitedNodeAddress(ip);
        groups.set(`${iface}|${ipKey(group)}`, { iface, group });
      }
    }
  }
  return { families, groups };
}

function groupEffect(
  kind: 'joinSolicitedNodeGroup' | 'leaveSolicitedNodeGroup',
  iface: string,
  group: IP,
  reason: L2EffectReason,
): L2Effect {
  // solicitedNodeMAC of any member equals the group's MAC: both keep the low 24 bits.
  return { kind, interface: iface, group, mac: solicitedNodeMAC(group), reason };
}

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortedEntries<V>(map: ReadonlyMap<string, V>): [string, V][] {
  return [...map.entries()].sort((a, b) => compareNames(a[0], b[0]));
}

function sortedPairs(state: L2AnnouncerState): { ip: IP; iface: string }[] {
  const pairs: { ip: IP; iface: string }[] = [];
  for (const { ip, interfaces } of state.announced.values()) for (const iface of interfaces) pairs.push({ ip, iface });
  return pairs.sort((a, b) => compareNames(a.iface, b.iface) || compareIP(a.ip, b.ip));
}
