/**
 * What this node announces, per service and protocol, read off one speaker plan: the input of the status objects
 * (service-status-plan.ts) and of the `nodeAssigned` events. Pure.
 */
import { formatIP } from '../../ip';
import type { SpeakerPlan } from '../speaker-plan';
import type { AnnouncedService } from './service-status-plan';

/** One layer 2 IP of a service this node won and cannot answer for (announce-failures.ts). */
export interface FailedAnnouncement {
  readonly service: string;
  readonly ip: string;
}

export function failureKey(failed: FailedAnnouncement): string {
  return `${failed.service} ${failed.ip}`;
}

export interface AnnouncedByProtocol {
  readonly layer2: readonly AnnouncedService[];
  readonly bgp: readonly AnnouncedService[];
}

/**
 * Undefined until the first join is over (the plan then has no BGP part): before that this node knows only itself
 * and announces nothing, and its status objects must not be judged from that. `failed`: layer 2 IPs this node
 * cannot answer for (announce-failures.ts); a service none of whose IPs is answered is not announced here, as
 * MetalLB's ServiceL2Status lists only what its announcer took.
 */
export function announcedServices(
  plan: Pick<SpeakerPlan, 'layer2' | 'bgp' | 'decision'>,
  self: string,
  failed: readonly FailedAnnouncement[] = [],
): AnnouncedByProtocol | undefined {
  if (plan.bgp === undefined) return undefined;
  const unanswered = new Set(failed.map(failureKey));
  const interfaces = new Map<string, Set<string>>();
  for (const owned of plan.layer2) {
    if (unanswered.has(failureKey({ service: owned.service, ip: formatIP(owned.ip) }))) continue;
    const set = interfaces.get(owned.service) ?? new Set<string>();
    for (const name of owned.interfaces) set.add(name);
    interfaces.set(owned.service, set);
  }
  const layer2 = [...interfaces].map(([service, names]) => ({ service, detail: [...names].sort() }));
  // While handing over the routes are already gone: the node no longer advertises them.
  const routed = plan.bgp.routes.length > 0;
  const bgpServices = plan.decision.outcomes.filter((o) => o.protocol === 'bgp' && o.announcing.includes(self)).map((o) => o.service);
  const peers = new Map<string, Set<string>>(bgpServices.map((s) => [s, new Set<string>()]));
  if (routed && bgpServices.length > 0) {
    for (const e of plan.decision.explain()) {
      if (e.protocol !== 'bgp' || !peers.has(e.service)) continue;
      for (const a of e.announcements ?? []) if (a.node === self) for (const p of a.peers) peers.get(e.service)!.add(p);
    }
  }
  const bgp = routed ? [...peers].map(([service, names]) => ({ service, detail: [...names].sort() })) : [];
  return { layer2, bgp };
}

/** MetalLB's speaker event on a service it announces (speaker/main.go): reason and message as it words them. */
export interface SpeakerEvent {
  readonly service: string;
  readonly type: 'Normal' | 'Warning';
  readonly reason: 'nodeAssigned' | 'announceFailed';
  readonly message: string;
}

export const PROTOCOL_NAMES = { layer2: 'layer2', bgp: 'bgp' } as const;

/** Go's %q of a plain string: a double-quoted string with JSON-compatible escapes for what node names may hold. */
export function goQuote(text: string): string {
  return JSON.stringify(text);
}

export function nodeAssignedEvent(service: string, node: string, protocol: keyof typeof PROTOCOL_NAMES): SpeakerEvent {
  return {
    service,
    type: 'Normal',
    reason: 'nodeAssigned',
    message: `announcing from node ${goQuote(node)} with protocol ${goQuote(PROTOCOL_NAMES[protocol])}`,
  };
}

/**
 * The `nodeAssigned` events owed now: one for each service this node has started announcing (per protocol) since
 * the previous plan. MetalLB emits one on every pass over an announced service; mlb passes over services only when
 * something changed, so it emits on each start of an announcement (a lost and regained service is a repeat, which
 * the event correlator counts on the same Event).
 */
export function newlyAnnounced(previous: AnnouncedByProtocol | undefined, now: AnnouncedByProtocol, node: string): SpeakerEvent[] {
  const events: SpeakerEvent[] = [];
  for (const protocol of ['layer2', 'bgp'] as const) {
    const before = new Set((previous?.[protocol] ?? []).map((a) => a.service));
    for (const a of now[protocol]) if (!before.has(a.service)) events.push(nodeAssignedEvent(a.service, node, protocol));
  }
  return events;
}
