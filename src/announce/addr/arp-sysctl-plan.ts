/**
 * Which ARP sysctls to change so that a crashed daemon leaves no kernel answering for its VIPs: the pure half of
 * `VipBinder.prepareInterfaces`.
 *
 * The danger. A VIP bound on mlb0 is a local address of the whole host. With Linux's defaults the kernel answers
 * an ARP request for ANY local address on ANY interface (the weak host model), so while the VIP sits on mlb0 the
 * kernel itself answers for it on eth0, whatever mlb decides. After a crash the addresses stay on mlb0 until the
 * next start, and the dead node's kernel would keep answering next to the new owner. Two sysctls close this
 * (semantics from the kernel's Documentation/networking/ip-sysctl.rst, checked against net/ipv4/arp.c):
 *
 * arp_ignore, for ARP requests received on an interface:
 *   0 (default) reply for a local address configured on any interface        -> answers for the VIP on mlb0
 *   1           reply only if the target is configured on the incoming interface -> never for the VIP
 *   2           as 1, and the sender must be in the same subnet on that interface -> never for the VIP
 *   3           do not reply for scope host addresses only                    -> still answers for the VIP
 *   4-7         reserved: the kernel replies (as 0)                           -> answers
 *   8           never reply                                                   -> silent, but for everything
 *   other       arp.c's switch falls to its default and replies              -> answers
 * "The max value from conf/{all,interface}/arp_ignore is used when ARP request is received on the {interface}".
 * Because it is the MAX, raising eth0 to 1 is not enough when conf/all holds 3 (or 4-7): max(3, 1) = 3 and the
 * kernel answers. Then conf/all itself has to come down to 1 (which also makes every other interface at least
 * as strict as 1: it only answers for its own addresses). A value the admin chose that is already silent for
 * other interfaces' addresses (1, 2, 8 as the effective max) is left alone.
 *
 * arp_announce, for the sender address of ARP requests this host sends:
 *   0 (default) any local address, e.g. the IP packet's source                 -> the VIP, if a reply to a
 *               client comes from it: the request then rewrites every neighbour's cache entry for the VIP to
 *               this host, stealing it back from the new owner (neighbours learn from requests, RFC 826)
 *   1           the packet's source only if it is in the target's subnet on this interface, else as 2
 *   2           always the best address of the outgoing interface for the target -> never the VIP on mlb0
 *   other       arp.c's switch handles it as 0
 * "The max value from conf/{all,interface}/arp_announce is used": setting the interface to 2 gives max(all, 2)
 * = 2 unless conf/all holds a value above 2, which the kernel treats as 0; then conf/all comes down to 2.
 *
 * IPv6 needs neither: the kernel answers a Neighbor Solicitation only for a target on the receiving interface
 * (ndisc_recv_ns looks the target up strictly on that device), and takes an NS's source from the outgoing
 * interface. Proxy NDP (proxy_ndp with forwarding on, plus a proxy entry) and anycast addresses are the
 * exceptions, and mlb configures neither. The lab test checks this claim (vip-binder.lab.test.ts).
 */

export const ARP_SYSCTL_NAMES = ['arp_ignore', 'arp_announce'] as const;
export type ArpSysctlName = (typeof ARP_SYSCTL_NAMES)[number];

/** conf/all: the value the kernel combines (by max) with every interface's own. */
export const ALL_SCOPE = 'all';

/** Reply only for addresses on the incoming interface: the weakest setting that keeps the VIP on mlb0 silent. */
const ARP_IGNORE_TARGET = 1;
/** Effective arp_ignore values under which the kernel never answers for an address on another interface. */
const ARP_IGNORE_SILENT_VALUES: readonly number[] = [1, 2, 8];
/** The highest arp_ignore value that still answers the host's own addresses (2 adds a subnet check on top). */
const ARP_IGNORE_HIGHEST_ANSWERING = 2;
/** Always the outgoing interface's best address as ARP source: the only arp_announce that never uses the VIP. */
const ARP_ANNOUNCE_TARGET = 2;

/** Linux's IFNAMSIZ is 16 with the terminating NUL. */
const MAX_INTERFACE_NAME_LENGTH = 15;

export interface ArpSysctlValues {
  readonly arp_ignore: number;
  readonly arp_announce: number;
}

/** Current values by scope: 'all' and each interface name; undefined where they could not be read. */
export type ArpSysctlReadings = Readonly<Record<string, ArpSysctlValues | undefined>>;

export const ARP_SYSCTL_REASONS = [
  /** arp_ignore on an interface would let the kernel answer for the VIP on mlb0: raised to 1. */
  'answersForOtherInterfaces',
  /** conf/all holds a value that, being the max, overrides the interface's 1 and answers: lowered. */
  'allOverridesInterface',
  /** arp_announce lets the kernel use the VIP as ARP sender address: raised to 2. */
  'mayAnnounceVip',
  /** The effective value is already safe (an admin's stricter choice is kept). */
  'alreadySafe',
  /** The interface's sysctls could not be read (no such interface in this namespace). */
  'interfaceUnreadable',
  /** conf/all could not be read (no IPv4 in this namespace?): nothing can be decided. */
  'allUnreadable',
  /** Not a Linux interface name (or 'all'/'default'): never turned into a /proc path. */
  'invalidInterfaceName',
] as const;
export type ArpSysctlReason = (typeof ARP_SYSCTL_REASONS)[number];

export interface ArpSysctlChange {
  readonly scope: string;
  readonly name: ArpSysctlName;
  readonly from: number;
  readonly to: number;
  readonly reason: ArpSysctlReason;
  readonly why: string;
}

export interface ArpSysctlKept {
  readonly scope: string;
  readonly name: ArpSysctlName;
  readonly value: number;
  /** max(all, interface): what the kernel uses. */
  readonly effective: number;
  readonly reason: 'alreadySafe';
  readonly why: string;
}

export interface ArpSysctlSkipped {
  readonly scope: string;
  readonly reason: 'interfaceUnreadable' | 'allUnreadable' | 'invalidInterfaceName';
  readonly why: string;
}

export interface ArpSysctlPlan {
  /** conf/all changes come first: the kernel reads both at every request, so all is settled before the rest. */
  readonly changes: ArpSysctlChange[];
  readonly kept: ArpSysctlKept[];
  readonly skipped: ArpSysctlSkipped[];
}

/** Linux's dev_valid_name, plus the two conf/ directories that are not interfaces. */
export function isValidInterfaceName(name: string): boolean {
  return (
    name.length > 0 &&
    name.length <= MAX_INTERFACE_NAME_LENGTH &&
    name !== '.' &&
    name !== '..' &&
    name !== ALL_SCOPE &&
    name !== 'default' &&
    !/[/:\s]/.test(name)
  );
}

const sysctl = (scope: string, name: ArpSysctlName) => `net.ipv4.conf.${scope}.${name}`;

function ignoreIsSilent(effective: number): boolean {
  return ARP_IGNORE_SILENT_VALUES.includes(effective);
}

/**
 * The changes that make every named interface's effective arp_ignore silent for addresses on other interfaces
 * and its effective arp_announce 2, touching conf/all only when its value would override the interface's.
 */
export function arpSysctlPlan(interfaceNames: readonly string[], current: ArpSysctlReadings): ArpSysctlPlan {
  const plan: ArpSysctlPlan = { changes: [], kept: [], skipped: [] };
  const names: string[] = [];
  for (const name of new Set(interfaceNames)) {
    if (!isValidInterfaceName(name)) {
      plan.skipped.push({ scope: name, reason: 'invalidInterfaceName', why: `"${name}" is not an interface name` });
    } else if (!current[name]) {
      plan.skipped.push({ scope: name, reason: 'interfaceUnreadable', why: `no /proc/sys/net/ipv4/conf/${name}: no such interface here` });
    } else {
      names.push(name);
    }
  }
  const all = current[ALL_SCOPE];
  if (!all) {
    if (names.length > 0) plan.skipped.push({ scope: ALL_SCOPE, reason: 'allUnreadable', why: 'conf/all could not be read' });
    return plan;
  }
  if (names.length === 0) return plan;

  const allIgnore = planAllIgnore(
    all.arp_ignore,
    names.map((n) => current[n]!.arp_ignore),
    plan,
  );
  const allAnnounce = planAllAnnounce(all.arp_announce, plan);
  for (const name of names) {
    const values = current[name]!;
    planInterfaceIgnore(name, values.arp_ignore, allIgnore, plan);
    planInterfaceAnnounce(name, values.arp_announce, allAnnounce, plan);
  }
  return plan;
}

/** Lowers conf/all/arp_ignore to 1 when it is an answering value above 2 that some interface cannot outvote. */
function planAllIgnore(all: number, interfaceValues: readonly number[], plan: ArpSysctlPlan): number {
  const overrides = all > ARP_IGNORE_HIGHEST_ANSWERING && !ignoreIsSilent(all);
  if (!overrides || interfaceValues.every((v) => ignoreIsSilent(Math.max(all, v)))) return all;
  plan.changes.push({
    scope: ALL_SCOPE,
    name: 'arp_ignore',
    from: all,
    to: ARP_IGNORE_TARGET,
    reason: 'allOverridesInterface',
    why: `${sysctl(ALL_SCOPE, 'arp_ignore')}=${all} answers for addresses on other interfaces and the kernel uses max(all, interface), so no per-interface value below it helps`,
  });
  return ARP_IGNORE_TARGET;
}

/** Values above 2 are handled as 0 by the kernel and would win the max: brought down to 2. */
function planAllAnnounce(all: number, plan: ArpSysctlPlan): number {
  if (all <= ARP_ANNOUNCE_TARGET) return all;
  plan.changes.push({
    scope: ALL_SCOPE,
    name: 'arp_announce',
    from: all,
    to: ARP_ANNOUNCE_TARGET,
    reason: 'allOverridesInterface',
    why: `${sysctl(ALL_SCOPE, 'arp_announce')}=${all} is treated as 0 (any local address, the VIP included) and the kernel uses max(all, interface)`,
  });
  return ARP_ANNOUNCE_TARGET;
}

function planInterfaceIgnore(name: string, value: number, all: number, plan: ArpSysctlPlan): void {
  const effective = Math.max(all, value);
  if (ignoreIsSilent(effective)) {
    plan.kept.push({
      scope: name,
      name: 'arp_ignore',
      value,
      effective,
      reason: 'alreadySafe',
      why: `max(all=${all}, ${name}=${value}) = ${effective} never answers for an address on another interface`,
    });
    return;
  }
  plan.changes.push({
    scope: name,
    name: 'arp_ignore',
    from: value,
    to: ARP_IGNORE_TARGET,
    reason: 'answersForOtherInterfaces',
    why: `effective ${effective} lets the kernel answer ARP on ${name} for a VIP on mlb0 (even after mlb crashed); 1 answers only for ${name}'s own addresses`,
  });
}

function planInterfaceAnnounce(name: string, value: number, all: number, plan: ArpSysctlPlan): void {
  const effective = Math.max(all, value);
  if (effective === ARP_ANNOUNCE_TARGET) {
    plan.kept.push({
      scope: name,
      name: 'arp_announce',
      value,
      effective,
      reason: 'alreadySafe',
      why: `max(all=${all}, ${name}=${value}) = 2: ARP requests on ${name} use ${name}'s own address`,
    });
    return;
  }
  plan.changes.push({
    scope: name,
    name: 'arp_announce',
    from: value,
    to: ARP_ANNOUNCE_TARGET,
    reason: 'mayAnnounceVip',
    why: `effective ${effective} lets ARP requests on ${name} carry a VIP as sender, pointing neighbours' caches for it at this host; 2 uses ${name}'s own address`,
  });
}
