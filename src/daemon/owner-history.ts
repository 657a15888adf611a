/**
 * Since when each service IP has had its current holder(s): the "since" column of `mlb status`, and the owner
 * changes (with how long the IP went unanswered) that the logs, the event stream and the
 * mlb_owner_change_unheld_seconds histogram report. Pure: fed every election outcome with the time it was made,
 * and what the failure detector knows of holders that are gone.
 *
 * A crashed owner stops answering when it dies, not when the cluster declares it dead: the election moves its IPs
 * only after SWIM's detection (probe deadline, then suspicion: about 1 s with the fast profile), and measuring
 * from the election alone reported 0 ms for an outage a client saw last most of a second. So when every previous
 * holder is gone, the gap is measured from when the last of them was last heard from, and the failure detector's
 * share of it (last packet to declared dead) is reported beside it.
 */
import type { ElectionOutcome } from '../election';
import type { Member } from '../gossip/swim';

export interface Holding {
  /** layer2: [owner] or []; bgp: the announcing nodes, sorted. */
  readonly holders: readonly string[];
  /** When these holders took over (epoch ms); for nobody, when the IPs stopped being answered. */
  readonly since: number;
}

/** How an owner change's unheldMs was measured. */
export type UnheldReason =
  /** The first holder this node has seen for these IPs: nothing to measure from (0). */
  | 'firstHolder'
  /** A previous holder was still a live member and kept answering until the new one took over (0). */
  | 'handedOver'
  /** Nobody held the IPs for a while: measured from when they stopped being answered. */
  | 'heldByNobody'
  /** Every previous holder is gone (crashed or left): measured from when the last of them was last heard from. */
  | 'holderGone'
  /** Nobody holds the IPs now: unheldMs is null. */
  | 'nobodyHolds';

export interface OwnerChange {
  readonly service: string;
  readonly protocol: ElectionOutcome['protocol'];
  readonly ips: readonly string[];
  readonly from: readonly string[];
  readonly to: readonly string[];
  /** How long nobody answered for the IPs before `to` took them (0 for a handover), null when `to` is empty. */
  readonly unheldMs: number | null;
  readonly unheldReason: UnheldReason;
  /**
   * holderGone: how long the failure detector took, from the gone holder's last packet to its being declared dead
   * (or leaving); null when this node never heard from it directly. Part of unheldMs, not added to it.
   */
  readonly detectionMs: number | null;
}

/** What the failure detector knows of a node that is no longer a live member. */
export interface GoneHolder {
  /** When this node last received a packet from it (epoch ms); undefined when never heard from directly. */
  readonly lastHeardAt: number | undefined;
  /** When it was declared dead, or announced it left (epoch ms). */
  readonly goneAt: number;
}

/** Answers for a node: undefined while it is a live member (alive or suspect), or what is known of its end. */
export type GoneHolders = (node: string) => GoneHolder | undefined;

const NONE_GONE: GoneHolders = () => undefined;

export type OwnerHistory = ReadonlyMap<string, Holding>;

export function holdingKey(o: Pick<ElectionOutcome, 'service' | 'protocol' | 'ips'>): string {
  return `${o.service}|${o.protocol}|${o.ips.join(',')}`;
}

/**
 * The gone-holder lookup from the gossip member table: dead and left members, with the time this node last heard
 * from each (GossipNode.lastHeardFrom). Members forgotten altogether (gone longer than GossipToTheDeadTime) cannot
 * be holders of a fresh outcome and count as unknown.
 */
export function goneHoldersFrom(
  members: readonly Pick<Member, 'name' | 'state' | 'stateChange'>[],
  lastHeardAt: (node: string) => number | undefined,
): GoneHolders {
  const gone = new Map<string, GoneHolder>();
  for (const m of members) {
    if (m.state === 'dead' || m.state === 'left') gone.set(m.name, { lastHeardAt: lastHeardAt(m.name), goneAt: m.stateChange });
  }
  return (node) => gone.get(node);
}

/** When the IPs stopped being answered, given their previous holders: undefined while any of them is live. */
function lastAnswered(from: readonly string[], gone: GoneHolders): { at: number; detectionMs: number | null } | undefined {
  let latest: { at: number; detectionMs: number | null } | undefined;
  for (const holder of from) {
    const end = gone(holder);
    if (!end) return undefined;
    const at = end.lastHeardAt ?? end.goneAt;
    const detectionMs = end.lastHeardAt === undefined ? null : Math.max(0, end.goneAt - end.lastHeardAt);
    if (!latest || at > latest.at) latest = { at, detectionMs };
  }
  return latest;
}

/** The next history and the changes it records. Outcomes that disappear (service deleted) are forgotten. */
export function trackOwners(
  history: OwnerHistory,
  outcomes: readonly ElectionOutcome[],
  now: number,
  gone: GoneHolders = NONE_GONE,
): { history: Map<string, Holding>; changes: OwnerChange[] } {
  const next = new Map<string, Holding>();
  const changes: OwnerChange[] = [];
  for (const outcome of outcomes) {
    const key = holdingKey(outcome);
    const holders = outcome.announcing;
    const previous = history.get(key);
    if (previous && sameList(previous.holders, holders)) {
      next.set(key, previous);
      continue;
    }
    const from = previous?.holders ?? [];
    const stopped = from.some((h) => holders.includes(h)) ? undefined : lastAnswered(from, gone);
    if (!previous && holders.length === 0) {
      next.set(key, { holders, since: now });
      continue;
    }
    const gap = measureGap(previous, holders, stopped, now);
    next.set(key, { holders, since: holders.length === 0 ? Math.min(now, stopped?.at ?? now) : now });
    changes.push({ service: outcome.service, protocol: outcome.protocol, ips: outcome.ips, from, to: holders, ...gap });
  }
  return { history: next, changes };
}

function measureGap(
  previous: Holding | undefined,
  holders: readonly string[],
  stopped: { at: number; detectionMs: number | null } | undefined,
  now: number,
): Pick<OwnerChange, 'unheldMs' | 'unheldReason' | 'detectionMs'> {
  if (holders.length === 0) return { unheldMs: null, unheldReason: 'nobodyHolds', detectionMs: stopped?.detectionMs ?? null };
  if (!previous) return { unheldMs: 0, unheldReason: 'firstHolder', detectionMs: null };
  if (previous.holders.length === 0)
    return { unheldMs: Math.max(0, now - previous.since), unheldReason: 'heldByNobody', detectionMs: null };
  if (stopped) return { unheldMs: Math.max(0, now - stopped.at), unheldReason: 'holderGone', detectionMs: stopped.detectionMs };
  return { unheldMs: 0, unheldReason: 'handedOver', detectionMs: null };
}

/** The tail of an ownerChanged log message: " (unheld 900 ms: node-a declared gone 700 ms after its last packet)". */
export function unheldText(change: Pick<OwnerChange, 'unheldMs' | 'unheldReason' | 'detectionMs' | 'from'>): string {
  if (change.unheldMs === null || change.unheldReason === 'firstHolder' || change.unheldReason === 'handedOver') return '';
  if (change.unheldReason !== 'holderGone') return ` (unheld ${change.unheldMs} ms)`;
  const detection =
    change.detectionMs === null ? 'never heard from directly' : `declared gone ${change.detectionMs} ms after its last packet`;
  return ` (unheld ${change.unheldMs} ms: ${change.from.join(',')} ${detection})`;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
