/**
 * bench/bgp's "speaker only" trial (information): mlb's BGP speaker alone (bench/bgp/speaker-runner.ts, the daemon's
 * BgpAnnouncer in the node's namespace) fed the N routes at once, once FRR sees the session Established; measured to
 * the same end point as the others (FRR's BGP table, then the kernel). What is left out against the file-edit row is
 * the daemon's own path: reading the file, allocation, election, the speaker plan.
 */
import { fileURLToPath } from 'node:url';
import { NetnsLab } from '../../test/support/netns-lab';
import { waitFor } from '../../test/support/routers';
import { JsonChild } from '../arp/json-child';
import { hostRoutes } from './mrt-table-dump';
import { FIRST_PREFIX, NODE_ASN, ROUTER_ASN, startBenchFrr, timeUntilFrrHolds, type FrrHoldTimes } from './gobgp-baseline';

const RUNNER = fileURLToPath(new URL('./speaker-runner.ts', import.meta.url));
/** mlb dials at once (no connect-retry wait as GoBGP's); FRR may take a few seconds to start answering. */
const SESSION_TIMEOUT_MS = 30_000;

export async function speakerOnlyTrial(prefixCount: number): Promise<FrrHoldTimes> {
  const lab = new NetnsLab();
  const stops: (() => void)[] = [];
  try {
    const node = lab.addHost('node1');
    const router = lab.addHost('router');
    const frr = await startBenchFrr(lab, router, [node.ipv4]);
    stops.push(frr.stop);
    const speaker = await JsonChild.start(lab, node, 'mlb speaker', RUNNER);
    stops.push(() => speaker.stop());
    await speaker.call({ op: 'peer', routerAddress: router.ipv4, myASN: NODE_ASN, peerASN: ROUTER_ASN });
    await waitFor("the speaker's session to FRR", () => frr.bgpSummary().peers.some((p) => p.established), SESSION_TIMEOUT_MS);
    const prefixes = hostRoutes(prefixCount, FIRST_PREFIX);
    const reply = await speaker.call({ op: 'announce', prefixes, communities: ['65000:100'] });
    return await timeUntilFrrHolds(frr, prefixCount, { since: Number(reply.since) });
  } finally {
    for (const stop of stops.reverse()) stop();
    lab.destroy();
  }
}
