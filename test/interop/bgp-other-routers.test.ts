/**
 * The same sessions and routes with BIRD 2 and GoBGP 3 as peers, and ExaBGP as a passive receiver that
 * shows what mlb sent (the /30 included, which the others refuse with their /32-only import policy).
 */
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canUseNetns, type LabHost } from '../support/netns-lab';
import {
  routerLabSkipReason,
  startBird,
  startExabgp,
  startGobgp,
  waitFor,
  type BirdRouter,
  type ExabgpReceiver,
  type GobgpRouter,
} from '../support/routers';
import { DaemonLab } from '../e2e/daemon-lab';
import { bgpLabConfig, NODE_ASN, ROUTER_ASN, SERVICE_V4, SERVICE_V6 } from './bgp-lab-config';

const netns = canUseNetns();
const skip = netns.ok ? routerLabSkipReason(['bird', 'gobgp', 'exabgp']) : netns.why;

describe.skipIf(skip !== undefined)(`mlb's BGP speaker with BIRD 2, GoBGP 3 and ExaBGP${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let lab: DaemonLab;
  let birdHost: LabHost;
  let gobgpHost: LabHost;
  let exaHost: LabHost;
  let bird: BirdRouter;
  let gobgp: GobgpRouter;
  let exabgp: ExabgpReceiver;

  beforeAll(async () => {
    lab = new DaemonLab(2);
    birdHost = lab.lab.addHost('bird');
    gobgpHost = lab.lab.addHost('gobgp');
    exaHost = lab.lab.addHost('exabgp');
    const fromNodes = lab.nodes.map((n) => ({ address: n.ipv4, asn: NODE_ASN }));
    [bird, gobgp, exabgp] = await Promise.all([
      startBird(lab.lab, birdHost, { asn: ROUTER_ASN, routerId: birdHost.ipv4, ipv6: true, neighbors: fromNodes }),
      startGobgp(lab.lab, gobgpHost, {
        asn: ROUTER_ASN,
        routerId: gobgpHost.ipv4,
        ipv6: true,
        neighbors: fromNodes.map((n) => ({ ...n, passive: true })),
      }),
      startExabgp(lab.lab, exaHost, { asn: ROUTER_ASN, routerId: exaHost.ipv4, ipv6: true, neighbors: fromNodes }),
    ]);
    writeFileSync(
      lab.configFile,
      bgpLabConfig([
        { name: 'bird', address: birdHost.ipv4 },
        { name: 'gobgp', address: gobgpHost.ipv4 },
        { name: 'exabgp', address: exaHost.ipv4 },
      ]),
    );
    lab.startAll();
  }, 60_000);
  afterAll(() => {
    for (const r of [bird, gobgp, exabgp]) r?.stop();
    lab?.destroy();
  });

  const nodeAddresses = () => lab.nodes.map((n) => n.ipv4).sort();

  it('BIRD: both sessions, the /32 in the kernel with both next hops, the /128 over MP-BGP, the /30 refused', async () => {
    await waitFor('BIRD sessions', () => bird.sessions().filter((s) => s.established).length === 2 || undefined, 30_000);
    const hops = await waitFor(
      'the /32 with both next hops',
      () => {
        const h = bird.installedNextHops(`${SERVICE_V4}/32`);
        return h.length === 2 ? h : undefined;
      },
      20_000,
    );
    expect(hops).toEqual(nodeAddresses());
    const paths = bird.routes(`${SERVICE_V4}/32`);
    expect(paths[0]?.communities).toEqual(['65000:100']);
    expect(paths[0]?.largeCommunities).toEqual(['64512:1:2']);
    await waitFor('the /128', () => bird.routes(`${SERVICE_V6}/128`).length === 2 || undefined, 20_000);
    expect(bird.routes('10.213.0.244/30')).toEqual([]);
  }, 60_000);

  it('GoBGP: both sessions and the /32 from both nodes with its communities; the /30 refused', async () => {
    await waitFor('GoBGP sessions', () => gobgp.neighbors().filter((s) => s.established).length === 2 || undefined, 30_000);
    const paths = await waitFor(
      'the /32 from both nodes',
      () => {
        const p = gobgp.routes(`${SERVICE_V4}/32`);
        return p.length === 2 ? p : undefined;
      },
      20_000,
    );
    expect(paths.map((p) => p.nextHop).sort()).toEqual(nodeAddresses());
    for (const p of paths) {
      expect(p.communities).toEqual(['65000:100']);
      expect(p.largeCommunities).toEqual(['64512:1:2']);
      expect(p.asPath).toEqual([NODE_ASN]);
    }
    expect(gobgp.routes('10.213.0.244/30')).toEqual([]);
  }, 60_000);

  it('ExaBGP receives exactly what mlb sends: the /32, the /128 with an IPv6 next hop, and the /30', async () => {
    await waitFor('ExaBGP sessions', () => exabgp.sessions().filter((s) => s.established).length === 2 || undefined, 30_000);
    await waitFor(
      'all three prefixes from both nodes',
      () =>
        (exabgp.routes(`${SERVICE_V4}/32`).length === 2 &&
          exabgp.routes(`${SERVICE_V6}/128`).length === 2 &&
          exabgp.routes('10.213.0.244/30').length === 2) ||
        undefined,
      20_000,
    );
    expect(
      exabgp
        .routes(`${SERVICE_V6}/128`)
        .map((p) => p.nextHop)
        .sort(),
    ).toEqual(lab.nodes.map((n) => n.ipv6).sort());
    expect(exabgp.routes(`${SERVICE_V4}/32`)[0]?.localPref ?? null).toBeNull();
  }, 60_000);
});
