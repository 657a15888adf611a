/**
 * Which addresses the VIP interface (mlb0) gains and loses: the pure half of VIP binding (docs/architecture.md,
 * "VIP binding (file mode)"). On a plain host nothing like kube-proxy accepts traffic for a VIP, so the node that
 * owns it adds it to a local interface; this module compares what the kernel reports on mlb0 with what this node
 * owns and says what to add and remove, each with its reason.
 *
 * Everything on mlb0 that is not a VIP this node owns is removed: the interface is mlb's alone, so an address
 * there is either a withdrawn VIP or a stale one left by a crashed run.
 */
import { compareIP, formatIP, type IP, type IPFamily } from '../../ip';

/**
 * A VIP is bound as a single address (/32, /128). A wider prefix on mlb0 would also add a connected route for
 * the whole subnet through a device that drops everything, cutting this host off from its neighbours there.
 */
export const VIP_PREFIX: Readonly<Record<IPFamily, number>> = { 4: 32, 6: 128 };

/** An address as the kernel holds it on an interface. */
export interface BoundAddress {
  readonly ip: IP;
  readonly prefix: number;
}

export const VIP_DECISION_REASONS = [
  /** Owned by this node and not on mlb0 yet. */
  'desiredNotBound',
  /** Owned and already on mlb0 as a single address: nothing to do. */
  'alreadyBound',
  /** On mlb0 but not owned: withdrawn, or left by a crashed run. */
  'notDesired',
  /** Owned, but on mlb0 with a subnet prefix: removed and added again as a single address. */
  'wrongPrefix',
  /** The same VIP twice in the desired list: the second copy is ignored. */
  'duplicateDesired',
] as const;
export type VipDecisionReason = (typeof VIP_DECISION_REASONS)[number];

export interface VipDecision {
  readonly ip: IP;
  readonly prefix: number;
  readonly action: 'add' | 'remove' | 'keep';
  readonly reason: VipDecisionReason;
}

export interface VipBindingPlan {
  /** Addresses to add, each as a single address (VIP_PREFIX), sorted. */
  readonly add: IP[];
  /** Addresses to remove with the prefix they have on mlb0 (an IPv6 delete must name it), sorted. */
  readonly remove: BoundAddress[];
  /** One decision per address looked at, removals first: the log lines and `mlb explain` read these. */
  readonly decisions: VipDecision[];
}

function keyOf(ip: IP): string {
  return `${ip.family}/${ip.value}`;
}

/** What to add to and remove from mlb0 so that it holds exactly `desired`, each as a /32 or /128. */
export function planVipBinding(current: readonly BoundAddress[], desired: readonly IP[]): VipBindingPlan {
  const wanted = new Map<string, IP>();
  const duplicates: VipDecision[] = [];
  for (const ip of desired) {
    if (wanted.has(keyOf(ip))) duplicates.push({ ip, prefix: VIP_PREFIX[ip.family], action: 'keep', reason: 'duplicateDesired' });
    else wanted.set(keyOf(ip), ip);
  }

  const removals: VipDecision[] = [];
  const keeps: VipDecision[] = [];
  const boundExactly = new Set<string>();
  for (const address of [...current].sort((a, b) => compareIP(a.ip, b.ip) || a.prefix - b.prefix)) {
    const key = keyOf(address.ip);
    if (!wanted.has(key)) {
      removals.push({ ...address, action: 'remove', reason: 'notDesired' });
    } else if (address.prefix !== VIP_PREFIX[address.ip.family]) {
      removals.push({ ...address, action: 'remove', reason: 'wrongPrefix' });
    } else if (!boundExactly.has(key)) {
      boundExactly.add(key);
      keeps.push({ ...address, action: 'keep', reason: 'alreadyBound' });
    }
  }

  const additions: VipDecision[] = [];
  for (const ip of [...wanted.values()].sort(compareIP)) {
    if (boundExactly.has(keyOf(ip))) continue;
    const rebound = removals.some((r) => r.reason === 'wrongPrefix' && keyOf(r.ip) === keyOf(ip));
    additions.push({ ip, prefix: VIP_PREFIX[ip.family], action: 'add', reason: rebound ? 'wrongPrefix' : 'desiredNotBound' });
  }

  return {
    add: additions.map((d) => d.ip),
    remove: removals.map((d) => ({ ip: d.ip, prefix: d.prefix })),
    decisions: [...removals, ...additions, ...keeps, ...duplicates],
  };
}

/** "10.0.0.1/32", the form `ip addr` prints and the logs use. */
export function formatBoundAddress(address: BoundAddress): string {
  return `${formatIP(address.ip)}/${address.prefix}`;
}
