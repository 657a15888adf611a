/**
 * Renders the frr.conf of a lab router the way a typical MetalLB tutorial configures its FRR 8.4 router
 * (`frr defaults traditional`): one peer group for the mlb nodes, passive by default, `no bgp default
 * ipv4-unicast` with the families activated explicitly, and inbound/outbound route maps on every neighbor,
 * because RFC 8212 (`bgp ebgp-requires-policy`, on in FRR's traditional defaults) makes an eBGP peer without
 * policies accept and send nothing. The inbound map lets only host routes through (/32, /128): that is what
 * refuses aggregationLength 30 on such a router. Pure: options in, text out.
 */
import { RouterError } from './router-error';

/** The peer-group and policy names such tutorials use, so a vtysh transcript reads like theirs. */
const PEER_GROUP = 'METALLB';
const ROUTE_MAP_IN_V4 = 'METALLB-IN';
const ROUTE_MAP_IN_V6 = 'METALLB-IN6';
const ROUTE_MAP_OUT = 'DENY-ALL';
const PREFIX_LIST_V4 = 'METALLB-IN';
const PREFIX_LIST_V6 = 'METALLB-IN6';

export interface FrrNeighbor {
  readonly address: string;
  readonly asn: number;
  /** Wait for the node to connect (on a node running Calico, BIRD may hold its port 179). Default true. */
  readonly passive?: boolean;
  /** A profile of FrrBfd (`neighbor X bfd profile P`); bfdd must run, so `bfd` must be given too. */
  readonly bfdProfile?: string;
}

export interface FrrBfd {
  readonly profile: string;
  readonly receiveMs: number;
  readonly transmitMs: number;
  readonly multiplier: number;
  /** bfdd waits for the peer's first packet (BFDProfile passiveMode). */
  readonly passive?: boolean;
  /** Single-hop BFD sessions configured without BGP (`peer X` in the bfd block), e.g. towards a BIRD. */
  readonly staticPeers?: readonly string[];
}

export interface FrrListenRange {
  /** Accept sessions from any address in this prefix (`bgp listen range`), e.g. 10.213.0.0/24. */
  readonly prefix: string;
  readonly asn: number;
  readonly bfdProfile?: string;
}

export interface FrrOptions {
  readonly asn: number;
  readonly routerId: string;
  readonly neighbors?: readonly FrrNeighbor[];
  readonly listenRange?: FrrListenRange;
  /** Accept only /32 (and /128) routes, as a `ge 32` prefix list does. Default true. */
  readonly prefixList32Only?: boolean;
  readonly bfd?: FrrBfd;
  /** Activate the IPv6 unicast family (MP-BGP, RFC 4760) on the peer group, with its own /128 policy. */
  readonly ipv6?: boolean;
  /** BGP timers for the peer group; FRR's traditional defaults are keepalive 60 s, hold 180 s. */
  readonly timers?: { readonly keepaliveS: number; readonly holdS: number };
  /** hostname line; shows in vtysh prompts and logs. */
  readonly hostname?: string;
  /** `log file` path (FRR writes it as user frr). */
  readonly logFile?: string;
}

function invalid(message: string): never {
  throw new RouterError('invalidOptions', message);
}

/** Checks what FRR would refuse or silently misread, so a bad test setup fails with a reason, not a hang. */
function validateFrrOptions(options: FrrOptions): void {
  const neighbors = options.neighbors ?? [];
  if (neighbors.length === 0 && !options.listenRange) invalid('an FRR router needs neighbors or a listenRange');
  const profiles = new Set(options.bfd ? [options.bfd.profile] : []);
  for (const n of [...neighbors, ...(options.listenRange ? [options.listenRange] : [])]) {
    if (n.bfdProfile !== undefined && !profiles.has(n.bfdProfile)) {
      invalid(`bfd profile ${n.bfdProfile} is used but not defined (give options.bfd with that profile)`);
    }
  }
  if (options.listenRange) {
    const other = neighbors.find((n) => n.asn !== options.listenRange?.asn);
    if (other)
      invalid(`neighbor ${other.address} has AS ${other.asn}, but the peer group of the listen range has AS ${options.listenRange.asn}`);
  }
  const seen = new Set<string>();
  for (const n of neighbors) {
    if (seen.has(n.address)) invalid(`neighbor ${n.address} is listed twice`);
    seen.add(n.address);
  }
}

/** The AS number the peer group carries, when one fits every member (`neighbor METALLB remote-as`). */
function groupAsn(options: FrrOptions): number | undefined {
  if (options.listenRange) return options.listenRange.asn;
  const asns = new Set((options.neighbors ?? []).map((n) => n.asn));
  return asns.size === 1 ? [...asns][0] : undefined;
}

function bfdBlock(bfd: FrrBfd): string[] {
  const profile = [
    ` profile ${bfd.profile}`,
    `  receive-interval ${bfd.receiveMs}`,
    `  transmit-interval ${bfd.transmitMs}`,
    `  detect-multiplier ${bfd.multiplier}`,
    ...(bfd.passive ? ['  passive-mode'] : []),
    ' exit',
  ];
  const peers = (bfd.staticPeers ?? []).flatMap((peer) => [` peer ${peer}`, `  profile ${bfd.profile}`, ' exit']);
  return ['bfd', ...profile, ...peers, 'exit', '!'];
}

function neighborLines(options: FrrOptions): string[] {
  const neighbors = options.neighbors ?? [];
  const asn = groupAsn(options);
  const allPassive = neighbors.every((n) => n.passive !== false);
  const lines = [` neighbor ${PEER_GROUP} peer-group`];
  if (asn !== undefined) lines.push(` neighbor ${PEER_GROUP} remote-as ${asn}`);
  if (allPassive) lines.push(` neighbor ${PEER_GROUP} passive`);
  if (options.timers) lines.push(` neighbor ${PEER_GROUP} timers ${options.timers.keepaliveS} ${options.timers.holdS}`);
  if (options.listenRange?.bfdProfile) lines.push(` neighbor ${PEER_GROUP} bfd profile ${options.listenRange.bfdProfile}`);
  for (const n of neighbors) {
    // Without a group AS, FRR wants each member's remote-as before it joins the group.
    if (asn === undefined) lines.push(` neighbor ${n.address} remote-as ${n.asn}`);
    lines.push(` neighbor ${n.address} peer-group ${PEER_GROUP}`);
    if (!allPassive && n.passive !== false) lines.push(` neighbor ${n.address} passive`);
    if (n.bfdProfile) lines.push(` neighbor ${n.address} bfd profile ${n.bfdProfile}`);
  }
  if (options.listenRange) lines.push(` bgp listen range ${options.listenRange.prefix} peer-group ${PEER_GROUP}`);
  return lines;
}

function addressFamily(family: 'ipv4' | 'ipv6', routeMapIn: string): string[] {
  return [
    ' !',
    ` address-family ${family} unicast`,
    `  neighbor ${PEER_GROUP} activate`,
    `  neighbor ${PEER_GROUP} route-map ${routeMapIn} in`,
    `  neighbor ${PEER_GROUP} route-map ${ROUTE_MAP_OUT} out`,
    ' exit-address-family',
  ];
}

function policies(options: FrrOptions): string[] {
  const only32 = options.prefixList32Only !== false;
  // `ge 32` admits exactly the host routes; `le 32` admits everything (a policy must still exist, RFC 8212).
  const lines = [`ip prefix-list ${PREFIX_LIST_V4} seq 10 permit 0.0.0.0/0 ${only32 ? 'ge' : 'le'} 32`];
  if (options.ipv6) lines.push(`ipv6 prefix-list ${PREFIX_LIST_V6} seq 10 permit ::/0 ${only32 ? 'ge' : 'le'} 128`);
  lines.push('!', `route-map ${ROUTE_MAP_IN_V4} permit 10`, ` match ip address prefix-list ${PREFIX_LIST_V4}`, 'exit', '!');
  if (options.ipv6) {
    lines.push(`route-map ${ROUTE_MAP_IN_V6} permit 10`, ` match ipv6 address prefix-list ${PREFIX_LIST_V6}`, 'exit', '!');
  }
  lines.push(`route-map ${ROUTE_MAP_OUT} deny 10`, 'exit', '!');
  return lines;
}

export type FrrDaemon = 'zebra' | 'bfdd' | 'bgpd';

interface FrrConfigParts {
  readonly header: string[];
  readonly bfdd?: string[];
  readonly bgpd: string[];
}

function configParts(options: FrrOptions): FrrConfigParts {
  validateFrrOptions(options);
  const header = [
    'frr version 8.4.4',
    'frr defaults traditional',
    ...(options.hostname ? [`hostname ${options.hostname}`] : []),
    ...(options.logFile ? [`log file ${options.logFile} informational`] : []),
    '!',
  ];
  const bgpd = [
    // bgpd binds new route-maps to their neighbors on a timer (5 s by default): a router started just before its
    // peers (every lab) drops their first UPDATEs, then asks for them again (ROUTE-REFRESH) 5 s later. A router
    // up for days never shows it; 0 processes the route-maps at load, so neither does the lab.
    'bgp route-map delay-timer 0',
    '!',
    `router bgp ${options.asn}`,
    ` bgp router-id ${options.routerId}`,
    ' no bgp default ipv4-unicast',
    ...neighborLines(options),
    ...addressFamily('ipv4', ROUTE_MAP_IN_V4),
    ...(options.ipv6 ? addressFamily('ipv6', ROUTE_MAP_IN_V6) : []),
    'exit',
    '!',
    ...policies(options),
  ];
  return { header, bgpd, ...(options.bfd ? { bfdd: bfdBlock(options.bfd) } : {}) };
}

const text = (lines: readonly string[]): string => `${lines.join('\n')}\n`;

/**
 * One configuration file per daemon. Each FRR daemon started with `-f` parses the whole file and stops at the
 * first top-level `exit` of a block it does not know (bgpd reading bfdd's `bfd ... exit` never reaches
 * `router bgp`), so the integrated frr.conf only works through vtysh -b; separate files sidestep that.
 */
export function renderFrrDaemonConfigs(options: FrrOptions): { zebra: string; bgpd: string; bfdd?: string } {
  const parts = configParts(options);
  return {
    zebra: text(parts.header),
    bgpd: text([...parts.header, ...parts.bgpd]),
    ...(parts.bfdd ? { bfdd: text([...parts.header, ...parts.bfdd]) } : {}),
  };
}

/** The whole configuration as one frr.conf file (for transcripts and failure messages). */
export function renderFrrConfig(options: FrrOptions): string {
  const parts = configParts(options);
  return text([...parts.header, ...(parts.bfdd ?? []), ...parts.bgpd]);
}
