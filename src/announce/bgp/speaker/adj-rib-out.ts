/**
 * The Adj-RIB-Out of one session (RFC 4271 3.2: the routes we have advertised to a peer) as a pure value, and
 * the reconciler that moves a peer from what it holds to what it should hold:
 * (state, desired, session) -> { state, updates, and a reason for every route that moved or stayed out }.
 *
 * MetalLB (internal/bgp/native sendUpdates): on a change, a route whose attributes differ from what was sent is
 * sent again (a new path replaces the old one: RFC 4271 3.1 implicit withdrawal, no withdrawal first), routes no
 * longer wanted are withdrawn after the announcements (a capture of MetalLB v0.16: the /30 is announced, then the
 * /32 withdrawn), and a route the peer already holds identically is not sent again, so reconciling twice sends
 * nothing.
 * Beyond MetalLB, routes with identical attributes share UPDATEs (update-packing.ts) and a new session ends its
 * first burst with End-of-RIB per family (RFC 4724), so a peer knows when it has everything.
 *
 * The state lives as long as the session: when it goes down the caller drops it, and the next session starts
 * with initialSync.
 */
import type { FamilyName } from '../session/session-config';
import type { CIDR } from '../../../ip';
import { Afi, Safi, type BgpUpdate } from '../bgp-messages';
import { endOfRib } from '../codec/end-of-rib';
import { comparePrefixes, type PeerRoutes, type RouteIntent } from './route-intent';
import { routeAttributes, type RouteAttributes, type SkipReason, type SpeakerSession } from './route-attributes';
import { announcementUpdates, fitsInOneUpdate, withdrawalUpdates, type AnnouncementGroup } from './update-packing';

/** A route the peer holds from us, with the attributes it was sent with. */
export interface SentRoute {
  readonly intent: RouteIntent;
  readonly attributes: RouteAttributes;
}

export interface AdjRibOut {
  /** By prefix text (formatCIDR). */
  readonly routes: ReadonlyMap<string, SentRoute>;
}

export function emptyAdjRibOut(): AdjRibOut {
  return { routes: new Map() };
}

export type AnnounceReason = 'new' | 'attributesChanged';
/** notDesired: no announcement asks for it any more; otherwise why it can no longer be sent. */
export type WithdrawReason = 'notDesired' | SkipReason;

export interface SpeakerStep {
  readonly state: AdjRibOut;
  /** In sending order: announcements, then withdrawals (then End-of-RIB after initialSync). */
  readonly updates: readonly BgpUpdate[];
  readonly announced: readonly { readonly prefix: string; readonly reason: AnnounceReason }[];
  readonly withdrawn: readonly { readonly prefix: string; readonly reason: WithdrawReason }[];
  /** Desired routes not sent on this session, and why. */
  readonly skipped: readonly { readonly prefix: string; readonly reason: SkipReason }[];
}

/** Groups by attribute key, each group's prefixes sorted, groups in the order of their first prefix. */
function groupForSending(routes: Iterable<SentRoute>): AnnouncementGroup[] {
  const byKey = new Map<string, { attributes: RouteAttributes; prefixes: CIDR[] }>();
  for (const r of routes) {
    const group = byKey.get(r.attributes.key);
    if (group) group.prefixes.push(r.intent.prefix);
    else byKey.set(r.attributes.key, { attributes: r.attributes, prefixes: [r.intent.prefix] });
  }
  const groups = [...byKey.values()];
  for (const g of groups) g.prefixes.sort(comparePrefixes);
  return groups.sort((a, b) => comparePrefixes(a.prefixes[0] as CIDR, b.prefixes[0] as CIDR));
}

/** The route as this session would send it, or why it cannot be sent here. */
function onSession(intent: RouteIntent, session: SpeakerSession): { route: SentRoute } | { skip: SkipReason } {
  const result = routeAttributes(intent, session);
  if (!result.ok) return { skip: result.reason };
  if (!fitsInOneUpdate(result.value, intent.prefix)) return { skip: 'attributesTooLarge' };
  return { route: { intent, attributes: result.value } };
}

export function reconcile(state: AdjRibOut, desired: PeerRoutes, session: SpeakerSession): SpeakerStep {
  const next = new Map<string, SentRoute>();
  const toSend: SentRoute[] = [];
  const announced: { prefix: string; reason: AnnounceReason }[] = [];
  const skipped: { prefix: string; reason: SkipReason }[] = [];
  const skipReasons = new Map<string, SkipReason>();
  for (const [prefix, intent] of desired) {
    const decided = onSession(intent, session);
    if ('skip' in decided) {
      skipped.push({ prefix, reason: decided.skip });
      skipReasons.set(prefix, decided.skip);
      continue;
    }
    const { route } = decided;
    next.set(prefix, route);
    const before = state.routes.get(prefix);
    if (before && before.attributes.key === route.attributes.key) continue;
    toSend.push(route);
    announced.push({ prefix, reason: before ? 'attributesChanged' : 'new' });
  }
  const withdrawn: { prefix: string; reason: WithdrawReason }[] = [];
  const withdrawnPrefixes: CIDR[] = [];
  for (const [prefix, before] of state.routes) {
    if (next.has(prefix)) continue;
    withdrawn.push({ prefix, reason: skipReasons.get(prefix) ?? 'notDesired' });
    withdrawnPrefixes.push(before.intent.prefix);
  }
  withdrawnPrefixes.sort(comparePrefixes);
  const updates = [...announcementUpdates(groupForSending(toSend)), ...withdrawalUpdates(withdrawnPrefixes)];
  return { state: { routes: next }, updates, announced, withdrawn, skipped };
}

/**
 * A session that just reached Established: everything desired, then End-of-RIB for each negotiated family
 * (RFC 4724 2), IPv4 first.
 */
export function initialSync(desired: PeerRoutes, session: SpeakerSession): SpeakerStep {
  const step = reconcile(emptyAdjRibOut(), desired, session);
  const eors = (['ipv4', 'ipv6'] as const)
    .filter((f) => session.families.includes(f))
    .map((f) => endOfRib(f === 'ipv4' ? Afi.ipv4 : Afi.ipv6, Safi.unicast));
  return { ...step, updates: [...step.updates, ...eors] };
}

/**
 * The peer sent ROUTE-REFRESH (RFC 2918) for a family (or the caller wants everything again): every route it
 * should hold from us, re-sent with the attributes it was sent with; nothing is withdrawn and the state is unchanged.
 */
export function resync(state: AdjRibOut, family?: FamilyName): BgpUpdate[] {
  const routes = [...state.routes.values()].filter((r) => family === undefined || r.attributes.family === family);
  return announcementUpdates(groupForSending(routes));
}
