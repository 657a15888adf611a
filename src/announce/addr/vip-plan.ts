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

/**
 * A map key for an address: an IPv4 address's value as a number, an IPv6 one's as text. Called for every VIP at
 * each reconcile (twice per change): a bigint's text costs far more than a number at 10,000 VIPs.
 */
export function vipKeyOf(ip: IP): number | string {
  return ip.family === 4 ? Number(ip.value) : `6/${ip.value}`;
}

/** Sorted by address then prefix; the input itself when it already is (the common case: nothing to move). */
function sortedAddresses(addresses: readonly BoundAddress[]): readonly BoundAddress[] {
  const order = (a: BoundAddress, b: BoundAddress) => compareIP(a.ip, b.ip) || a.prefix - b.prefix;
  for (let i = 1; i < addresses.length; i++) if (order(addresses[i - 1]!, addresses[i]!) > 0) return [...addresses].sort(order);
  return addresses;
}

/** What to add to and remove from mlb0 so that it holds exactly `desired`, each as a /32 or /128. */
export function planVipBinding(current: readonly BoundAddress[], desired: readonly IP[]): VipBindingPlan {
  const wanted = new Map<number | string, IP>();
  const duplicates: VipDecision[] = [];
  for (const ip of desired) {
    const key = vipKeyOf(ip);
    if (wanted.has(key)) duplicates.push({ ip, prefix: VIP_PREFIX[ip.family], action: 'keep', reason: 'duplicateDesired' });
    else wanted.set(key, ip);
  }

  const removals: VipDecision[] = [];
  const keeps: VipDecision[] = [];
  const boundExactly = new Set<number | string>();
  const rebound = new Set<number | string>();
  for (const address of sortedAddresses(current)) {
    const key = vipKeyOf(address.ip);
    if (!wanted.has(key)) {
      removals.push({ ip: address.ip, prefix: address.prefix, action: 'remove', reason: 'notDesired' });
    } else if (address.prefix !== VIP_PREFIX[address.ip.family]) {
      removals.push({ ip: address.ip, prefix: address.prefix, action: 'remove', reason: 'wrongPrefix' });
      rebound.add(key);
    } else if (!boundExactly.has(key)) {
      boundExactly.add(key);
      keeps.push({ ip: address.ip, prefix: address.prefix, action: 'keep', reason: 'alreadyBound' });
    }
  }

  const additions: VipDecision[] = [];
  for (const [key, ip] of wanted) {
    if (boundExactly.has(key)) continue;
    additions.push({ ip, prefix: VIP_PREFIX[ip.family], action: 'add', reason: rebound.has(key) ? 'wrongPrefix' : 'desiredNotBound' });
  }
  // Sorted after the filter: a change adds a few of the thousands already bound.
  additions.sort((a, b) => compareIP(a.ip, b.ip));

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
