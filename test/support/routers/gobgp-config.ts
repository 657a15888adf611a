/**
 * Renders gobgpd's TOML for a lab peer (GoBGP 3.10 from Debian). As a router for mlb it mirrors the lab's FRR
 * (src/cli/lab/frr-config.ts): a host-routes-only import policy (/32, /128) with reject as the default, so an
 * aggregated /30 is refused the same way. As the speaker stand-in of the self-test and the baseline of bench/bgp,
 * it dials its neighbors with a 1 s connect retry (GoBGP's default 120 s would stall a test after one refused
 * dial). Pure: options in, text out.
 */
import { ipVersionOfText } from '../../../src/cli/lab/route-path';
import { RouterError } from '../../../src/cli/lab/router-shell';

export const GOBGP_API_PORT = 50051;
/** Seconds between dials after a refused connection; 1 is GoBGP's minimum (its first dial still waits ~5 s). */
export const GOBGP_CONNECT_RETRY_S = 1;
const POLICY = 'mlb-host-routes-only';

export interface GobgpNeighbor {
  readonly address: string;
  readonly asn: number;
  /** Wait for the other side to connect instead of dialing. Default false. */
  readonly passive?: boolean;
}

export interface GobgpOptions {
  readonly asn: number;
  readonly routerId: string;
  readonly neighbors?: readonly GobgpNeighbor[];
  /** Accept sessions from any address in the prefix (GoBGP dynamic neighbors); these are always passive. */
  readonly listenRange?: { readonly prefix: string; readonly asn: number };
  /** Activate ipv6-unicast next to ipv4-unicast on every session (MP-BGP). */
  readonly ipv6?: boolean;
  /** Import only /32 and /128 routes, rejecting the rest (as the lab's FRR does). Default true. */
  readonly importHostRoutesOnly?: boolean;
  /** Listen on TCP 179 (needed for passive neighbors and listen ranges). Default true. */
  readonly listen?: boolean;
  readonly timers?: { readonly keepaliveS: number; readonly holdS: number };
}

function afiSafis(prefix: string, ipv6: boolean | undefined): string[] {
  const families = ['ipv4-unicast', ...(ipv6 ? ['ipv6-unicast'] : [])];
  return families.flatMap((name) => [`  [[${prefix}.afi-safis]]`, `    [${prefix}.afi-safis.config]`, `      afi-safi-name = "${name}"`]);
}

function timers(prefix: string, options: GobgpOptions): string[] {
  return [
    `  [${prefix}.timers.config]`,
    `    connect-retry = ${GOBGP_CONNECT_RETRY_S}`,
    ...(options.timers ? [`    keepalive-interval = ${options.timers.keepaliveS}`, `    hold-time = ${options.timers.holdS}`] : []),
  ];
}

function neighborBlock(n: GobgpNeighbor, options: GobgpOptions): string[] {
  return [
    '[[neighbors]]',
    '  [neighbors.config]',
    `    neighbor-address = "${n.address}"`,
    `    peer-as = ${n.asn}`,
    ...timers('neighbors', options),
    ...(n.passive ? ['  [neighbors.transport.config]', '    passive-mode = true'] : []),
    ...afiSafis('neighbors', options.ipv6),
  ];
}

function listenRangeBlocks(range: NonNullable<GobgpOptions['listenRange']>, options: GobgpOptions): string[] {
  return [
    '[[peer-groups]]',
    '  [peer-groups.config]',
    '    peer-group-name = "mlb"',
    `    peer-as = ${range.asn}`,
    ...timers('peer-groups', options),
    ...afiSafis('peer-groups', options.ipv6),
    '[[dynamic-neighbors]]',
    '  [dynamic-neighbors.config]',
    `    prefix = "${range.prefix}"`,
    '    peer-group = "mlb"',
  ];
}

/** Two prefix sets (GoBGP keeps one family per set) and one statement per family, accept; default reject. */
function hostRoutePolicy(): string[] {
  const set = (name: string, prefix: string, length: number) => [
    '[[defined-sets.prefix-sets]]',
    `  prefix-set-name = "${name}"`,
    '  [[defined-sets.prefix-sets.prefix-list]]',
    `    ip-prefix = "${prefix}"`,
    `    masklength-range = "${length}..${length}"`,
  ];
  const statement = (setName: string) => [
    '  [[policy-definitions.statements]]',
    '    [policy-definitions.statements.conditions.match-prefix-set]',
    `      prefix-set = "${setName}"`,
    '    [policy-definitions.statements.actions]',
    '      route-disposition = "accept-route"',
  ];
  return [
    ...set('host-routes-v4', '0.0.0.0/0', 32),
    ...set('host-routes-v6', '::/0', 128),
    '[[policy-definitions]]',
    `  name = "${POLICY}"`,
    ...statement('host-routes-v4'),
    ...statement('host-routes-v6'),
  ];
}

export function renderGobgpConfig(options: GobgpOptions): string {
  const neighbors = options.neighbors ?? [];
  if (neighbors.length === 0 && !options.listenRange)
    throw new RouterError('invalidOptions', 'a GoBGP peer needs neighbors or a listenRange');
  if (ipVersionOfText(options.routerId) !== 4)
    throw new RouterError('invalidOptions', `router-id must be an IPv4 address, not ${options.routerId}`);
  const hostOnly = options.importHostRoutesOnly !== false;
  const lines = [
    '[global.config]',
    `  as = ${options.asn}`,
    `  router-id = "${options.routerId}"`,
    // -1 disables the listener; a speaker that only dials needs no port 179.
    ...(options.listen === false ? ['  port = -1'] : []),
    ...(hostOnly
      ? ['[global.apply-policy.config]', `  import-policy-list = ["${POLICY}"]`, '  default-import-policy = "reject-route"']
      : []),
    ...neighbors.flatMap((n) => neighborBlock(n, options)),
    ...(options.listenRange ? listenRangeBlocks(options.listenRange, options) : []),
    ...(hostOnly ? hostRoutePolicy() : []),
  ];
  return `${lines.join('\n')}\n`;
}
