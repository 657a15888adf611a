/**
 * mlb's BGP mode against a real router: two hosts running `mlb daemon` in BGP mode and FRR 8.4 configured as
 * MetalLB tutorials configure it (passive peer group, RFC 8212 policies, a /32-only prefix list, a BFD profile), in
 * network namespaces.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { MLB_BUNDLE } from '../cli/run-cli';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canUseNetns, type LabHost } from '../support/netns-lab';
import { routerLabSkipReason, startFrr, waitFor, type FrrRouter } from '../support/routers';
import { DaemonLab } from '../e2e/daemon-lab';
import { bgpLabConfig, NODE_ASN, ROUTER_ASN, SERVICE_V4, SERVICE_V6 } from './bgp-lab-config';

/** The tutorial-style router (eBGP, BFD) and an iBGP route reflector-like FRR that shows LOCAL_PREF. */
function bgpConfig(router: LabHost, extra = ''): string {
  return bgpLabConfig(
    [
      { name: 'router', address: router.ipv4, bfdProfile: 'fast' },
      { name: 'ibgp', address: ibgpHost.ipv4, asn: NODE_ASN },
    ],
    extra,
  );
}

let ibgpHost: LabHost;

const netns = canUseNetns();
const routerSkip = netns.ok ? routerLabSkipReason(['frr']) : netns.why;

describe.skipIf(routerSkip !== undefined)(`mlb's BGP speaker with FRR 8.4${routerSkip ? ` (skipped: ${routerSkip})` : ''}`, () => {
  let lab: DaemonLab;
  let router: LabHost;
  let frr: FrrRouter;
  let ibgp: FrrRouter;

  beforeAll(async () => {
    lab = new DaemonLab(2);
    router = lab.lab.addHost('router');
    ibgpHost = lab.lab.addHost('ibgp');
    ibgp = await startFrr(lab.lab, ibgpHost, {
      asn: NODE_ASN,
      routerId: ibgpHost.ipv4,
      listenRange: { prefix: '10.213.0.0/24', asn: NODE_ASN },
    });
    frr = await startFrr(lab.lab, router, {
      asn: ROUTER_ASN,
      routerId: router.ipv4,
      ipv6: true,
      prefixList32Only: true,
      neighbors: lab.nodes.map((n) => ({ address: n.ipv4, asn: NODE_ASN, bfdProfile: 'fast' })),
      bfd: { profile: 'fast', receiveMs: 300, transmitMs: 300, multiplier: 3 },
    });
    writeFileSync(lab.configFile, bgpConfig(router));
    lab.startAll();
  }, 60_000);
  afterAll(() => {
    frr?.stop();
    ibgp?.stop();
    lab?.destroy();
  });

  const established = () =>
    frr
      .bgpSummary()
      .peers.filter((p) => p.family === 'ipv4' && p.established)
      .map((p) => p.address)
      .sort();
  const nodeAddresses = () => lab.nodes.map((n) => n.ipv4).sort();

  it('both nodes establish sessions, and the /32 is installed with both next hops (ECMP)', async () => {
    await waitFor('both sessions established', () => established().length === 2 || undefined, 30_000);
    const hops = await waitFor(
      'the /32 with two next hops',
      () => {
        const h = frr.installedNextHops(`${SERVICE_V4}/32`);
        return h.length === 2 ? h : undefined;
      },
      20_000,
    );
    expect(hops).toEqual(nodeAddresses());
  }, 60_000);

  it("the metrics say so under MetalLB's names", async () => {
    const peer = router.ipv4.replace(/\./g, '\\.');
    const text = await waitFor(
      'BFD up in the metrics',
      () => {
        const t = lab.metrics('node-1');
        return new RegExp(`^metallb_bfd_session_up\\{peer="${peer}"\\} 1$`, 'm').test(t) ? t : undefined;
      },
      20_000,
    );
    expect(text).toMatch(new RegExp(`^metallb_bgp_session_up\\{peer="${peer}"\\} 1$`, 'm'));
    expect(text).toMatch(new RegExp(`^metallb_bgp_announced_prefixes_total\\{peer="${peer}"\\} 3$`, 'm'));
    expect(text).toMatch(new RegExp(`^metallb_bgp_updates_total\\{peer="${peer}"\\} [1-9]`, 'm'));
    expect(text).toMatch(/^metallb_speaker_announced\{(?=.*protocol="bgp")(?=.*ip="10\.213\.0\.240").*\} 1$/m);
  });

  it('mlb status shows each session with what the peer holds from this node', () => {
    const run = spawnSync(process.execPath, [MLB_BUNDLE, 'status', '--once', '--socket', lab.socket('node-1')], { encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^router\\s+${router.ipv4.replace(/\./g, '\\.')}\\s+Established\\s+\\S+\\s+3\\s+up`, 'm'));
  });

  it('carries the communities and the large community; LOCAL_PREF stays off the eBGP session', () => {
    const paths = frr.routes(`${SERVICE_V4}/32`);
    expect(paths).toHaveLength(2);
    for (const path of paths) {
      expect(path.communities).toEqual(['65000:100']);
      expect(path.largeCommunities).toEqual(['64512:1:2']);
      expect(path.asPath).toEqual([NODE_ASN]);
      expect(path.localPref ?? null).toBeNull();
    }
  });

  it('an iBGP peer gets LOCAL_PREF 200 from the advertisement', async () => {
    const paths = await waitFor(
      'the /32 on the iBGP router',
      () => {
        const p = ibgp.routes(`${SERVICE_V4}/32`);
        return p.length === 2 ? p : undefined;
      },
      30_000,
    );
    for (const path of paths) expect(path.localPref).toBe(200);
  }, 40_000);

  it("an IPv6 service reaches FRR over MP-BGP with each node's IPv6 next hop", async () => {
    const paths = await waitFor(
      'the /128 over MP-BGP',
      () => {
        const p = frr.routes(`${SERVICE_V6}/128`);
        return p.length === 2 ? p : undefined;
      },
      20_000,
    );
    expect(paths.map((p) => p.nextHop).sort()).toEqual(lab.nodes.map((n) => n.ipv6).sort());
  });

  it('aggregationLength 30 is refused by the /32-only prefix list, as on a MetalLB router, while mlb did send it', async () => {
    const status = lab.status('node-1') as unknown as { bgp?: { peer: string; prefixes: number }[] };
    // web /32, web6 /128 and the /30.
    expect(status.bgp?.find((b) => b.peer === 'router')?.prefixes).toBe(3);
    expect(frr.routes('10.213.0.244/30')).toEqual([]);
    // mlb sent two IPv4 prefixes (the /32 and the /30); FRR's inbound policy kept one.
    expect(frr.vtysh(`show bgp ipv4 unicast neighbors ${lab.nodes[0]!.ipv4} prefix-counts`)).toMatch(/PfxCt: 1\b/);
  });

  it('labelling a node with the exclusion label withdraws its path while its session stays up', async () => {
    const excluded = `---
apiVersion: v1
kind: Node
metadata: { name: node-2, labels: { node.kubernetes.io/exclude-from-external-load-balancers: '' } }
`;
    writeFileSync(lab.configFile, bgpConfig(router, excluded));
    const hops = await waitFor(
      "node-2's path withdrawn",
      () => {
        const h = frr.installedNextHops(`${SERVICE_V4}/32`);
        return h.length === 1 ? h : undefined;
      },
      20_000,
    );
    expect(hops).toEqual([lab.host('node-1').ipv4]);
    expect(established()).toEqual(nodeAddresses());
    writeFileSync(lab.configFile, bgpConfig(router));
    await waitFor("node-2's path back", () => frr.installedNextHops(`${SERVICE_V4}/32`).length === 2 || undefined, 20_000);
  }, 60_000);

  it('BFD is up with bfdd, and a node that loses its link leaves FRR through BFD, not the hold timer', async () => {
    await waitFor('BFD up with both nodes', () => frr.bfdPeers().filter((p) => p.status === 'up').length === 2 || undefined, 20_000);
    const node2 = lab.host('node-2');
    const downAt = Date.now();
    lab.lab.unplug(node2);
    await waitFor("node-2's path gone", () => frr.installedNextHops(`${SERVICE_V4}/32`).length === 1 || undefined, 20_000);
    console.log(`node-2's path left FRR ${Date.now() - downAt} ms after its link went down (BFD 300 ms x 3; hold time 90 s)`);
    lab.lab.plug(node2);
    const neighbor = frr.json(`show bgp neighbors ${node2.ipv4} json`)[node2.ipv4];
    // FRR tears the session down itself when bfdd says the peer is gone (a Cease it sends, naming BFD).
    expect(JSON.stringify(neighbor)).toMatch(/BFD/i);
    await waitFor('node-2 back', () => frr.installedNextHops(`${SERVICE_V4}/32`).length === 2 || undefined, 40_000);
  }, 90_000);

  it('kill -9 of a daemon takes its path away at once (its kernel closes the session)', async () => {
    const killedAt = Date.now();
    lab.daemon('node-1').child.kill('SIGKILL');
    const hops = await waitFor(
      "node-1's path gone",
      () => {
        const h = frr.installedNextHops(`${SERVICE_V4}/32`);
        return h.length === 1 ? h : undefined;
      },
      20_000,
    );
    console.log(`node-1's path left FRR ${Date.now() - killedAt} ms after kill -9`);
    expect(hops).toEqual([lab.host('node-2').ipv4]);
  }, 60_000);
});
