/**
 * bench/bgp's baseline: how long FRR (a passive peer group, /32 only) takes to hold N /32s that GoBGP 3 sends it,
 * from the moment they are handed to GoBGP. bench/bgp compares mlb against this in the same run: the same FRR
 * configuration, the same prefixes, the same clock, only the speaker differs. bench/bgp.bench.ts calls
 * timeUntilFrrHolds with mlb as the speaker; gobgpBaseline runs the GoBGP side whole.
 *
 * A trial: a fresh two-namespace lab (node .1, router .2), FRR passive, GoBGP dialing it; once the session is
 * Established (and idle), the clock starts and the N routes stream into GoBGP as one MRT table dump (gobgp mrt
 * inject: one process for all routes; one `gobgp global rib add` per route would measure Go process start-ups, not
 * BGP).
 * Measured: until FRR's BGP table counts N prefixes (bgpMs), and until zebra has N BGP routes in the kernel
 * (fibMs), polled every POLL_MS. Run alone: `node --import tsx bench/bgp/gobgp-baseline.ts` (root, the four
 * router packages); BENCH_BGP_PREFIXES (default 10,000), BENCH_BGP_TRIALS (default 3).
 */
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { NetnsLab, type LabHost } from '../../test/support/netns-lab';
import { routerLabSkipReason, startFrr, startGobgp, waitFor, type FrrRouter } from '../../test/support/routers';
import { GOBGP_API_PORT } from '../../test/support/routers/gobgp-config';
import { encodeHostRoutesDump, hostRoutes } from './mrt-table-dump';

export const NODE_ASN = 64512;
export const ROUTER_ASN = 64513;
/** The bench's prefixes: 10.214.0.0 onwards, off the lab's node subnet 10.213.0.0/24 as service pools are. */
export const FIRST_PREFIX = '10.214.0.0';
export const DEFAULT_PREFIXES = 10_000;
/** Polling FRR costs a vtysh process each time; 50 ms resolves second-scale results to a few percent. */
export const POLL_MS = 50;
/** GoBGP's first dial comes 5-10 s after it starts. */
const SESSION_TIMEOUT_MS = 40_000;
/** Far above any plausible convergence of 10,000 routes; a stuck run fails instead of hanging. */
const CONVERGE_TIMEOUT_MS = 120_000;

export interface FrrHoldTimes {
  /** ms from `since` until bgpd's table counted `expected` prefixes. */
  readonly bgpMs: number;
  /** ms from `since` until zebra had `expected` BGP routes in the kernel FIB. */
  readonly fibMs: number;
}

/** RIB entries (distinct prefixes) of bgpd's IPv4 unicast table, from `show bgp summary json`. */
function bgpPrefixCount(frr: FrrRouter): number {
  const summary = frr.json('show bgp ipv4 unicast summary json');
  return typeof summary?.ribCount === 'number' ? summary.ribCount : 0;
}

/**
 * Polls FRR until it holds `expected` IPv4 prefixes in bgpd and in the kernel, and returns both times from
 * `since` (Date.now() taken just before the speaker was given the routes). Call it right after triggering.
 */
export async function timeUntilFrrHolds(
  frr: FrrRouter,
  expected: number,
  options: { readonly since: number; readonly timeoutMs?: number; readonly pollMs?: number },
): Promise<FrrHoldTimes> {
  const timeoutMs = options.timeoutMs ?? CONVERGE_TIMEOUT_MS;
  const pollMs = options.pollMs ?? POLL_MS;
  await waitFor(`FRR's BGP table to hold ${expected} prefixes`, () => bgpPrefixCount(frr) >= expected, timeoutMs, pollMs);
  const bgpMs = Date.now() - options.since;
  await waitFor(`zebra to install ${expected} BGP routes`, () => frr.zebraBgpCounts(4).fib >= expected, timeoutMs, pollMs);
  return { bgpMs, fibMs: Date.now() - options.since };
}

/** The FRR of a bench lab: passive, RFC 8212 policies, /32 only, one node. */
export function startBenchFrr(lab: NetnsLab, router: LabHost, nodeAddresses: readonly string[]): Promise<FrrRouter> {
  return startFrr(lab, router, {
    asn: ROUTER_ASN,
    routerId: router.ipv4,
    prefixList32Only: true,
    neighbors: nodeAddresses.map((address) => ({ address, asn: NODE_ASN })),
  });
}

export interface BaselineTrial extends FrrHoldTimes {
  readonly prefixes: number;
  /** ms per route of the other way to load GoBGP, one `gobgp global rib add` per route (measured on the first trial). */
  readonly cliMsPerRoute?: number;
}

/** Routes added one CLI process each to price that method (a shell loop in the namespace, as a script would). */
export const CLI_SAMPLE_ROUTES = 100;
/** The CLI sample's prefixes, clear of the bench's 10.214.0.0/16. */
const CLI_SAMPLE_FIRST = '10.215.0.0';

/**
 * The per-route way to load GoBGP: one `gobgp global rib add` process per route, in one shell loop inside the
 * namespace. Returns ms per route (process start-up and a gRPC round trip each: why the bench injects an MRT dump).
 */
function cliMsPerRoute(netns: string, nextHop: string, count: number): number {
  const adds = hostRoutes(count, CLI_SAMPLE_FIRST)
    .map((p) => `gobgp -u 127.0.0.1 -p ${GOBGP_API_PORT} global rib add ${p} origin igp nexthop ${nextHop} community 65000:100 -a ipv4`)
    .join('\n');
  const at = performance.now();
  execFileSync('ip', ['netns', 'exec', netns, 'sh', '-e'], { input: adds, stdio: ['pipe', 'ignore', 'pipe'] });
  return (performance.now() - at) / count;
}

/** One GoBGP trial in a fresh lab, cleaned up whatever happens. */
export async function gobgpBaselineTrial(prefixCount = DEFAULT_PREFIXES, priceCli = false): Promise<BaselineTrial> {
  const lab = new NetnsLab();
  const stops: (() => void)[] = [];
  try {
    const node = lab.addHost('node1');
    const router = lab.addHost('router');
    const frr = await startBenchFrr(lab, router, [node.ipv4]);
    stops.push(frr.stop);
    const gobgp = await startGobgp(lab, node, {
      asn: NODE_ASN,
      routerId: node.ipv4,
      listen: false,
      importHostRoutesOnly: false,
      neighbors: [{ address: router.ipv4, asn: ROUTER_ASN }],
    });
    stops.push(gobgp.stop);
    await waitFor('the GoBGP session to FRR', () => frr.bgpSummary().peers.some((p) => p.established), SESSION_TIMEOUT_MS);
    const dump = encodeHostRoutesDump({
      prefixes: hostRoutes(prefixCount, FIRST_PREFIX),
      nextHop: node.ipv4,
      peerAddress: node.ipv4,
      peerAs: NODE_ASN,
      communities: ['65000:100'],
      timestamp: Math.floor(Date.now() / 1000),
    });
    const since = Date.now();
    const injection = gobgp.injectMrt(dump);
    let times: FrrHoldTimes;
    try {
      times = await timeUntilFrrHolds(frr, prefixCount, { since });
    } finally {
      await injection.finish();
    }
    // After the measurement, so it cannot slow it down.
    return {
      prefixes: prefixCount,
      ...times,
      ...(priceCli ? { cliMsPerRoute: cliMsPerRoute(node.netns, node.ipv4, CLI_SAMPLE_ROUTES) } : {}),
    };
  } finally {
    for (const stop of stops.reverse()) stop();
    lab.destroy();
  }
}

export async function gobgpBaseline(prefixCount = DEFAULT_PREFIXES, trials = 3): Promise<BaselineTrial[]> {
  const results: BaselineTrial[] = [];
  for (let i = 0; i < trials; i++) results.push(await gobgpBaselineTrial(prefixCount, i === 0));
  return results;
}

async function main(): Promise<void> {
  const skip = routerLabSkipReason(['frr', 'gobgp']);
  if (skip) {
    console.error(`bench/bgp gobgp-baseline: cannot run: ${skip}`);
    process.exit(2);
  }
  const count = Number(process.env.BENCH_BGP_PREFIXES ?? DEFAULT_PREFIXES);
  const trials = Number(process.env.BENCH_BGP_TRIALS ?? 3);
  const results = await gobgpBaseline(count, trials);
  for (const [i, r] of results.entries()) {
    console.log(`GoBGP -> FRR, ${r.prefixes} /32s, trial ${i + 1}: bgpd holds all after ${r.bgpMs} ms, kernel after ${r.fibMs} ms`);
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  console.log(
    `GoBGP -> FRR median: bgpd ${median(results.map((r) => r.bgpMs))} ms, kernel ${median(results.map((r) => r.fibMs))} ms (poll ${POLL_MS} ms)`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
