/**
 * Renders bird.conf for BIRD 2.0 as a lab router for mlb, configured to the same rules as the lab's FRR
 * (src/cli/lab/frr-config.ts): sessions wait for the nodes (passive), only host routes (/32, /128) are imported,
 * nothing is exported to the nodes, and the accepted routes go to the namespace's kernel table with equal paths
 * merged (ECMP), so the kernel shows what traffic would follow. Optional BFD (RFC 5880) on the sessions and towards
 * static peers. Pure: options in, text out.
 */
import { ipVersionOfText } from '../../../src/cli/lab/route-path';
import { RouterError } from '../../../src/cli/lab/router-shell';

export interface BirdNeighbor {
  readonly address: string;
  readonly asn: number;
  /** Default true (a MetalLB router waits for the nodes). */
  readonly passive?: boolean;
}

export interface BirdOptions {
  readonly asn: number;
  readonly routerId: string;
  readonly neighbors?: readonly BirdNeighbor[];
  /** Dynamic BGP (`neighbor range`): sessions from any address of the prefix, one protocol each. */
  readonly listenRange?: { readonly prefix: string; readonly asn: number };
  readonly ipv6?: boolean;
  /** Import only /32 and /128. Default true. */
  readonly importHostRoutesOnly?: boolean;
  /** BFD (RFC 5880): on every BGP session (`bfd on`) unless sessions is false, plus static peers without BGP. */
  readonly bfd?: {
    readonly intervalMs: number;
    readonly multiplier: number;
    readonly sessions?: boolean;
    readonly staticPeers?: readonly string[];
  };
  readonly timers?: { readonly keepaliveS: number; readonly holdS: number };
  /** `log "<file>" all;` */
  readonly logFile?: string;
}

/** BIRD protocol names must be symbols: n<index> keeps them short and valid for any address. */
function birdProtocolName(index: number): string {
  return `mlb${index + 1}`;
}

function channel(family: 'ipv4' | 'ipv6', hostOnly: boolean): string[] {
  return [
    `  ${family} {`,
    `    import ${hostOnly ? `filter host_routes_${family === 'ipv4' ? 4 : 6}` : 'all'};`,
    '    export none;',
    '  };',
  ];
}

function templateBlock(options: BirdOptions): string[] {
  const hostOnly = options.importHostRoutesOnly !== false;
  return [
    'template bgp mlb_peer {',
    `  local as ${options.asn};`,
    ...(options.timers ? [`  hold time ${options.timers.holdS};`, `  keepalive time ${options.timers.keepaliveS};`] : []),
    // Retry quickly after a dropped session, so a restarted speaker is not kept waiting (BIRD's default is 60-300 s).
    '  error wait time 1, 5;',
    '  connect retry time 1;',
    ...(options.bfd && options.bfd.sessions !== false ? ['  bfd on;'] : []),
    ...channel('ipv4', hostOnly),
    ...(options.ipv6 ? channel('ipv6', hostOnly) : []),
    '}',
  ];
}

function bgpProtocols(options: BirdOptions): string[] {
  const lines: string[] = [];
  (options.neighbors ?? []).forEach((n, i) => {
    lines.push(`protocol bgp ${birdProtocolName(i)} from mlb_peer {`, `  neighbor ${n.address} as ${n.asn};`);
    if (n.passive !== false) lines.push('  passive on;');
    lines.push('}');
  });
  if (options.listenRange) {
    lines.push(
      'protocol bgp mlb_range from mlb_peer {',
      `  neighbor range ${options.listenRange.prefix} as ${options.listenRange.asn};`,
      '  dynamic name "mlbdyn";',
      '}',
    );
  }
  return lines;
}

function bfdProtocol(bfd: NonNullable<BirdOptions['bfd']>): string[] {
  return [
    'protocol bfd {',
    '  interface "*" {',
    `    min rx interval ${bfd.intervalMs} ms;`,
    `    min tx interval ${bfd.intervalMs} ms;`,
    `    multiplier ${bfd.multiplier};`,
    '  };',
    ...(bfd.staticPeers ?? []).map((peer) => `  neighbor ${peer};`),
    '}',
  ];
}

export function renderBirdConfig(options: BirdOptions): string {
  if ((options.neighbors ?? []).length === 0 && !options.listenRange)
    throw new RouterError('invalidOptions', 'a BIRD router needs neighbors or a listenRange');
  if (ipVersionOfText(options.routerId) !== 4)
    throw new RouterError('invalidOptions', `router id must be an IPv4 address, not ${options.routerId}`);
  const kernel = (family: 'ipv4' | 'ipv6') => [
    `protocol kernel kernel_${family} {`,
    `  ${family} { import none; export all; };`,
    // Equal BGP paths from several nodes become one multipath kernel route: the ECMP the router forwards with.
    '  merge paths on;',
    '}',
  ];
  const lines = [
    ...(options.logFile ? [`log "${options.logFile}" all;`] : []),
    `router id ${options.routerId};`,
    'protocol device { scan time 10; }',
    ...kernel('ipv4'),
    ...(options.ipv6 ? kernel('ipv6') : []),
    'filter host_routes_4 { if net.len = 32 then accept; reject; }',
    'filter host_routes_6 { if net.len = 128 then accept; reject; }',
    ...(options.bfd ? bfdProtocol(options.bfd) : []),
    ...templateBlock(options),
    ...bgpProtocols(options),
  ];
  return `${lines.join('\n')}\n`;
}
