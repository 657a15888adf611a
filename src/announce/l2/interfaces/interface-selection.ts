/**
 * Which interfaces answer for a VIP, pure: the links this node has (from netlink, or written by hand in tests) in,
 * a choice with its reason for every interface out.
 *
 * MetalLB (internal/layer2/announcer.go, updateInterfaces): every interface that is up, not enslaved (no master),
 * not NOARP and not matching the exclude list answers for every VIP; no subnet check (metallb#737). mlb adds:
 * - the exclude list extended with overlay and CNI devices MetalLB users keep hitting (cilium_*, vxlan*, weave*,
 *   kube-bridge);
 * - a subnet check: only interfaces with an address whose prefix contains the VIP answer for it; when none does,
 *   every eligible interface does (MetalLB's behaviour), with the warning noInterfaceInVipSubnet;
 * - an explicit list (L2Advertisement.interfaces) overrides the exclude list and the subnet check; an interface
 *   named there must still exist, be up, not enslaved, not NOARP and have a MAC, or nothing could be answered on it.
 */
import { cidrContains, formatCIDR, formatIP, makeCIDR, type IP } from '../../../ip';
import type { MacAddress } from '../mac-address';

export interface LinkAddress {
  readonly ip: IP;
  readonly prefix: number;
}

/** What selection needs to know about one network interface. */
export interface LinkInfo {
  readonly index: number;
  readonly name: string;
  /** The link-layer address; undefined for links without one (tun, wireguard). */
  readonly mac: MacAddress | undefined;
  /** IFF_UP (administratively up): MetalLB's filter. */
  readonly up: boolean;
  /** The ifindex of the bridge or bond this link is enslaved to. */
  readonly master: number | undefined;
  /** IFF_NOARP. */
  readonly noarp: boolean;
  readonly addresses: readonly LinkAddress[];
}

/** MetalLB v0.16's default exclude list (speaker --ignore-... / layer2 announcer), as regular expressions. */
export const METALLB_EXCLUDED_INTERFACES: readonly string[] = [
  '^docker.*',
  '^cbr.*',
  '^dummy.*',
  '^virbr.*',
  '^lxcbr.*',
  '^veth.*',
  '^lo$',
  '^cali.*',
  '^tunl.*',
  '^flannel.*',
  '^kube-ipvs.*',
  '^cni.*',
  '^nodelocaldns.*',
  '^lxc.*',
];
/** mlb's additions: Cilium, VXLAN, Flannel, Weave and kube-router devices. */
const MLB_EXTRA_EXCLUDED_INTERFACES: readonly string[] = ['^cilium_.*', '^vxlan.*', '^flannel.*', '^weave.*', '^kube-bridge$'];
export const DEFAULT_EXCLUDED_INTERFACES: readonly string[] = [
  ...new Set([...METALLB_EXCLUDED_INTERFACES, ...MLB_EXTRA_EXCLUDED_INTERFACES]),
];

/** Why an interface was or was not chosen: stable names (logs, `mlb explain`); append-only. */
export const InterfaceReason = {
  /** Eligible and has an address whose subnet contains the VIP. */
  subnetContainsVip: 'subnetContainsVip',
  /** Eligible, no eligible interface has the VIP's subnet: MetalLB's answer-everywhere, with a warning. */
  fallbackNoSubnetMatch: 'fallbackNoSubnetMatch',
  /** Named in the explicit list and usable. */
  explicitlyListed: 'explicitlyListed',
  /** Eligible, but another interface has the VIP's subnet. */
  subnetMismatch: 'subnetMismatch',
  /** An explicit list is given and does not name this interface. */
  notListed: 'notListed',
  /** An explicit list names an interface this node does not have. */
  notFound: 'notFound',
  /** Not administratively up. */
  down: 'down',
  /** Enslaved to a bridge or bond (has a master): its master answers. */
  enslaved: 'enslaved',
  /** IFF_NOARP. */
  noarp: 'noarp',
  /** Matches the exclude list. */
  excluded: 'excluded',
  /** No link-layer address to answer with. */
  noLinkLayerAddress: 'noLinkLayerAddress',
} as const;
export type InterfaceReason = keyof typeof InterfaceReason;

export interface InterfaceChoice {
  readonly interface: string;
  readonly selected: boolean;
  readonly reason: InterfaceReason;
  /** The exclude pattern matched, the master's index, the subnet that contains the VIP. */
  readonly detail?: string;
}

export interface InterfaceSelection {
  readonly ip: IP;
  /** Names of the chosen interfaces, sorted. */
  readonly selected: readonly string[];
  /** One per link, plus one per explicitly listed name that does not exist; sorted by interface. */
  readonly choices: readonly InterfaceChoice[];
  /** noInterfaceInVipSubnet: fell back to every eligible interface; noUsableInterface: nothing selected at all. */
  readonly warning?: 'noInterfaceInVipSubnet' | 'noUsableInterface';
}

export interface SelectionOptions {
  /** L2Advertisement.interfaces: when non-empty, exactly these (if usable), ignoring exclusion and subnets. */
  readonly interfaces?: readonly string[];
  /** Regular expressions; default DEFAULT_EXCLUDED_INTERFACES. */
  readonly exclude?: readonly string[];
}

const compiled = new Map<string, RegExp>();
function regex(pattern: string): RegExp {
  let r = compiled.get(pattern);
  if (!r) {
    r = new RegExp(pattern);
    compiled.set(pattern, r);
  }
  return r;
}

/** MetalLB's state filters (up, no master, not NOARP): undefined when they pass, else why not. */
function linkUnusable(link: LinkInfo): { reason: InterfaceReason; detail?: string } | undefined {
  if (!link.up) return { reason: 'down' };
  if (link.master !== undefined) return { reason: 'enslaved', detail: `master ifindex ${link.master}` };
  if (link.noarp) return { reason: 'noarp' };
  return undefined;
}

/**
 * Whether `link` could answer for some IP under some list: up, not enslaved, not NOARP, with a MAC. The subnets
 * of the others never decide a choice (mlb0, NOARP, holds every bound VIP).
 */
export function mayAnswer(link: LinkInfo): boolean {
  return linkUnusable(link) === undefined && hasLinkLayerAddress(link);
}

/** A link with no MAC (tun, wireguard) or an all-zero one (lo) has nothing to answer with. */
export function hasLinkLayerAddress(link: LinkInfo): boolean {
  return link.mac !== undefined && link.mac.some((b) => b !== 0);
}

/** The first exclude pattern `name` matches, if any. */
export function excludedBy(name: string, exclude: readonly string[] = DEFAULT_EXCLUDED_INTERFACES): string | undefined {
  return exclude.find((p) => regex(p).test(name));
}

/** The address of `link` whose subnet contains `ip` (same family), as "10.0.0.1/24". */
function subnetContaining(link: LinkInfo, ip: IP): LinkAddress | undefined {
  return link.addresses.find((a) => a.ip.family === ip.family && cidrContains(makeCIDR(a.ip, a.prefix), ip));
}

/**
 * What selectInterfaces reads of `links`, as text: two equal bases choose the same interfaces for every IP and
 * every explicit list, so a caller may keep its choices while the basis holds. A link that cannot be chosen
 * whatever the IP (down, enslaved, noarp: mlb0 among them, holding every bound VIP) counts by its name and reason
 * only: binding one more VIP does not make the choice for every other IP stale.
 */
export function selectionBasis(links: readonly LinkInfo[]): string {
  const parts: string[] = [];
  for (const link of links) {
    const unusable = linkUnusable(link);
    if (unusable) parts.push(`${link.name}!${unusable.reason}:${unusable.detail ?? ''}`);
    else
      parts.push(
        `${link.name}${hasLinkLayerAddress(link) ? '' : '!nomac'}=${link.addresses.map((a) => `${formatIP(a.ip)}/${a.prefix}`).join(',')}`,
      );
  }
  return parts.join(' ');
}

export function selectInterfaces(ip: IP, links: readonly LinkInfo[], options: SelectionOptions = {}): InterfaceSelection {
  const exclude = options.exclude ?? DEFAULT_EXCLUDED_INTERFACES;
  const explicit = options.interfaces && options.interfaces.length > 0 ? new Set(options.interfaces) : undefined;
  const choices: InterfaceChoice[] = [];
  const candidates: { link: LinkInfo; subnet: LinkAddress | undefined }[] = [];

  for (const link of links) {
    if (explicit && !explicit.has(link.name)) {
      choices.push({ interface: link.name, selected: false, reason: 'notListed' });
      continue;
    }
    const unusable = linkUnusable(link);
    if (unusable) {
      choices.push({ interface: link.name, selected: false, ...unusable });
      continue;
    }
    if (!explicit) {
      const pattern = excludedBy(link.name, exclude);
      if (pattern !== undefined) {
        choices.push({ interface: link.name, selected: false, reason: 'excluded', detail: pattern });
        continue;
      }
    }
    if (!hasLinkLayerAddress(link)) {
      choices.push({ interface: link.name, selected: false, reason: 'noLinkLayerAddress' });
      continue;
    }
    candidates.push({ link, subnet: subnetContaining(link, ip) });
  }
  if (explicit) {
    const names = new Set(links.map((l) => l.name));
    for (const name of explicit) if (!names.has(name)) choices.push({ interface: name, selected: false, reason: 'notFound' });
    for (const { link } of candidates) choices.push({ interface: link.name, selected: true, reason: 'explicitlyListed' });
  } else {
    const inSubnet = candidates.some((c) => c.subnet !== undefined);
    for (const { link, subnet } of candidates) {
      if (!inSubnet) choices.push({ interface: link.name, selected: true, reason: 'fallbackNoSubnetMatch' });
      else if (subnet) choices.push({ interface: link.name, selected: true, reason: 'subnetContainsVip', detail: showAddress(subnet) });
      else choices.push({ interface: link.name, selected: false, reason: 'subnetMismatch' });
    }
  }
  choices.sort((a, b) => (a.interface < b.interface ? -1 : a.interface > b.interface ? 1 : 0));
  const selected = choices.filter((c) => c.selected).map((c) => c.interface);
  const warning =
    selected.length === 0
      ? 'noUsableInterface'
      : choices.some((c) => c.reason === 'fallbackNoSubnetMatch')
        ? 'noInterfaceInVipSubnet'
        : undefined;
  return warning ? { ip, selected, choices, warning } : { ip, selected, choices };
}

function showAddress(a: LinkAddress): string {
  return formatCIDR(makeCIDR(a.ip, a.prefix));
}
