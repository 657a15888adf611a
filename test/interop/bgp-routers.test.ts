/**
 * Self-test of the router harness (test/support/routers) before mlb's BGP speaker exists: GoBGP stands in for
 * the speaker on two "nodes" and announces what MetalLB would (a /32 with a community and a large community,
 * localPref for iBGP, an IPv6 /128 over MP-BGP) plus an aggregated /30. Then each router is asked the question
 * mlb's BGP interop tests ask of mlb:
 *   - FRR configured as MetalLB tutorials configure it (passive peer group, RFC 8212 policies, /32-only prefix
 *     list, a bfd profile): both sessions up, the /32 installed in zebra with both next hops, community and large community
 *     on the paths, the /30 refused, the /128 installed over MP-BGP; bfdd holds a session up (towards BIRD).
 *   - FRR as an iBGP router with a listen range: the dynamic session, and LOCAL_PREF 200 on the path.
 *   - BIRD 2 (same policy): both sessions, the /32 with both next hops in the kernel (ECMP), the /30 refused.
 *   - GoBGP as a peer: the /32 with its attributes, the /30 refused.
 *   - ExaBGP as a passive receiver: everything as sent, the /30 included (proof the others filtered it),
 *     and a withdrawal.
 *   - GoBGP streaming an MRT table dump, the route source of bench/bgp's baseline, into FRR.
 * The top part checks the pure readers against answers captured from these router versions, without root.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeHostRoutesDump, hostRoutes } from '../../bench/bgp/mrt-table-dump';
import { NetnsLab, type LabHost } from '../support/netns-lab';
import { renderBirdConfig } from '../support/routers/bird-config';
import { parseBirdBfdSessions, parseBirdProtocols, parseBirdRoutes } from '../support/routers/bird-show';
import { parseExabgpLog } from '../support/routers/exabgp-log';
import { renderFrrConfig, renderFrrDaemonConfigs } from '../../src/cli/lab/frr-config';
import { parseFrrBfdPeers, parseFrrRoutes, parseFrrSummary, parseZebraNextHops } from '../../src/cli/lab/frr-json';
import { renderGobgpConfig } from '../support/routers/gobgp-config';
import { parseGobgpNeighbors, parseGobgpRib } from '../support/routers/gobgp-json';
import { parseIpRouteJson } from '../support/routers/kernel-routes';
import {
  nextHopsOf,
  routerLabSkipReason,
  RouterError,
  startBird,
  startExabgp,
  startFrr,
  startGobgp,
  waitFor,
  type BirdRouter,
  type ExabgpReceiver,
  type FrrRouter,
  type GobgpRouter,
  type RouterPath,
} from '../support/routers';

const SERVICE_V4 = '10.213.0.200/32';
const AGGREGATE_V4 = '10.213.0.204/30';
const SERVICE_V6 = 'fd00:213::200/128';
const COMMUNITY = '65000:100';
const LARGE_COMMUNITY = '64512:1:2';
const NODE_ASN = 64512;
const ROUTER_ASN = 64513;

describe('router harness: configurations and readers (no root)', () => {
  it('renders an FRR router the way MetalLB tutorials configure it', () => {
    const conf = renderFrrConfig({
      asn: ROUTER_ASN,
      routerId: '10.213.0.3',
      neighbors: [
        { address: '10.213.0.1', asn: NODE_ASN },
        { address: '10.213.0.2', asn: NODE_ASN },
      ],
    });
    expect(conf).toContain('frr defaults traditional');
    expect(conf).toContain(' no bgp default ipv4-unicast');
    expect(conf).toContain(` neighbor METALLB remote-as ${NODE_ASN}`);
    expect(conf).toContain(' neighbor METALLB passive');
    expect(conf).toContain('  neighbor METALLB route-map METALLB-IN in');
    expect(conf).toContain('  neighbor METALLB route-map DENY-ALL out');
    expect(conf).toContain('ip prefix-list METALLB-IN seq 10 permit 0.0.0.0/0 ge 32');
    expect(conf).not.toContain('ipv6 unicast');
  });

  it('gives bfdd its own file, because bgpd stops reading at the bfd block', () => {
    const files = renderFrrDaemonConfigs({
      asn: ROUTER_ASN,
      routerId: '10.213.0.3',
      neighbors: [{ address: '10.213.0.1', asn: NODE_ASN, bfdProfile: 'fast' }],
      bfd: { profile: 'fast', receiveMs: 300, transmitMs: 300, multiplier: 3 },
    });
    expect(files.bfdd).toContain('  detect-multiplier 3');
    expect(files.bgpd).not.toMatch(/^bfd$/m);
    expect(files.bgpd).not.toContain('detect-multiplier');
    expect(files.bgpd).toContain(' neighbor 10.213.0.1 bfd profile fast');
  });

  it('refuses FRR options it cannot render faithfully', () => {
    const undefinedProfile = () =>
      renderFrrConfig({ asn: 1, routerId: '10.0.0.1', neighbors: [{ address: '10.0.0.2', asn: 2, bfdProfile: 'x' }] });
    expect(undefinedProfile).toThrow(RouterError);
    const mixed = () =>
      renderFrrConfig({
        asn: 1,
        routerId: '10.0.0.1',
        listenRange: { prefix: '10.0.0.0/24', asn: 2 },
        neighbors: [{ address: '10.0.0.9', asn: 3 }],
      });
    expect(mixed).toThrow(/peer group of the listen range/);
    const mixedAsns = renderFrrConfig({
      asn: 1,
      routerId: '10.0.0.1',
      neighbors: [
        { address: '10.0.0.2', asn: 2 },
        { address: '10.0.0.3', asn: 3 },
      ],
    });
    expect(mixedAsns).toContain(' neighbor 10.0.0.3 remote-as 3');
  });

  it('renders GoBGP and BIRD with the same host-routes-only import policy', () => {
    const gobgp = renderGobgpConfig({
      asn: ROUTER_ASN,
      routerId: '10.213.0.7',
      neighbors: [{ address: '10.213.0.1', asn: NODE_ASN, passive: true }],
    });
    expect(gobgp).toContain('masklength-range = "32..32"');
    expect(gobgp).toContain('default-import-policy = "reject-route"');
    expect(gobgp).toContain('passive-mode = true');
    const bird = renderBirdConfig({ asn: ROUTER_ASN, routerId: '10.213.0.4', neighbors: [{ address: '10.213.0.1', asn: NODE_ASN }] });
    expect(bird).toContain('import filter host_routes_4;');
    expect(bird).toContain('passive on;');
    expect(bird).toContain('merge paths on;');
  });

  it('reads FRR 8.4 answers: summary, paths, zebra next hops, bfd peers', () => {
    const summary = parseFrrSummary({
      ipv4Unicast: {
        routerId: '10.213.0.3',
        as: 64513,
        peers: { '10.213.0.1': { remoteAs: 64512, pfxRcd: 1, state: 'Established' }, '10.213.0.2': { remoteAs: 64512, state: 'Active' } },
      },
    });
    expect(summary.peers.map((p) => [p.address, p.established, p.prefixesReceived])).toEqual([
      ['10.213.0.1', true, 1],
      ['10.213.0.2', false, undefined],
    ]);
    const path = {
      aspath: { string: '64512', segments: [{ type: 'as-sequence', list: [64512] }], length: 1 },
      origin: 'IGP',
      valid: true,
      multipath: true,
      community: { string: '65000:100', list: ['65000:100'] },
      largeCommunity: { string: '64512:1:2', list: ['64512:1:2'] },
      nexthops: [{ ip: '10.213.0.1', afi: 'ipv4', used: true }],
      peer: { peerId: '10.213.0.1', type: 'external' },
    };
    const [read] = parseFrrRoutes({ prefix: SERVICE_V4, paths: [path, { ...path, locPrf: 200, bestpath: { overall: true } }] }).slice(1);
    expect(read).toMatchObject({
      nextHop: '10.213.0.1',
      asPath: [64512],
      origin: 'igp',
      communities: [COMMUNITY],
      largeCommunities: [LARGE_COMMUNITY],
      localPref: 200,
      best: true,
    });
    expect(parseFrrRoutes({})).toEqual([]);
    const zebra = {
      [SERVICE_V4]: [
        {
          selected: true,
          installed: true,
          nexthops: [{ fib: true, ip: '10.213.0.2' }, { fib: true, ip: '10.213.0.1' }, { ip: '10.213.0.9' }],
        },
      ],
    };
    expect(parseZebraNextHops(zebra, SERVICE_V4)).toEqual(['10.213.0.1', '10.213.0.2']);
    expect(parseZebraNextHops({ '10.213.0.0/24': [{ selected: true, installed: true, nexthops: [] }] }, SERVICE_V4)).toEqual([]);
    const [bfd] = parseFrrBfdPeers([
      { peer: '10.213.0.4', status: 'up', 'receive-interval': 300, 'transmit-interval': 300, 'detect-multiplier': 3 },
    ]);
    expect(bfd).toMatchObject({ peer: '10.213.0.4', status: 'up', receiveMs: 300, multiplier: 3 });
    expect(() => parseFrrRoutes({ prefix: SERVICE_V4, paths: [{ aspath: { segments: [] } }] })).toThrow(/next hop/);
  });

  it('reads BIRD 2.0 text: protocols, ECMP paths, BFD sessions', () => {
    const protocols = [
      'BIRD 2.0.12 ready.',
      'Name       Proto      Table      State  Since         Info',
      'mlb1       BGP        ---        up     11:20:31.453  Established   ',
      '  BGP state:          Established',
      '    Neighbor address: 10.213.0.1',
      '    Neighbor AS:      64512',
      '    Session:          internal multihop AS4',
      '  Channel ipv4',
      '    Routes:         1 imported, 0 exported, 1 preferred',
    ].join('\n');
    const sessions = parseBirdProtocols(protocols);
    expect(sessions).toEqual([
      {
        protocol: 'mlb1',
        address: '10.213.0.1',
        remoteAs: 64512,
        state: 'Established',
        established: true,
        prefixesReceived: 1,
        internal: true,
      },
    ]);
    const routes = [
      'Table master4:',
      '10.213.0.200/32      unicast [mlb1 11:20:31.453] * (100) [AS64512i]',
      '\tvia 10.213.0.1 on eth0',
      '\tBGP.origin: IGP',
      '\tBGP.as_path: 64512',
      '\tBGP.next_hop: 10.213.0.1',
      '\tBGP.local_pref: 200',
      '\tBGP.community: (65000,100) (65000,200)',
      '\tBGP.large_community: (64512, 1, 2)',
      '                     unicast [mlb2 11:20:29.532] (100) [AS64512i]',
      '\tvia 10.213.0.2 on eth0',
      '\tBGP.next_hop: 10.213.0.2',
      '\tBGP.local_pref: 100',
    ].join('\n');
    const paths = parseBirdRoutes(routes, SERVICE_V4, sessions);
    expect(paths.map((p) => [p.nextHop, p.best, p.localPref])).toEqual([
      ['10.213.0.1', true, 200],
      ['10.213.0.2', false, undefined],
    ]);
    expect(paths[0]).toMatchObject({
      peer: '10.213.0.1',
      communities: ['65000:100', '65000:200'],
      largeCommunities: [LARGE_COMMUNITY],
      asPath: [64512],
    });
    expect(parseBirdRoutes('BIRD 2.0.12 ready.\nNetwork not found\n', SERVICE_V4)).toEqual([]);
    const bfd = parseBirdBfdSessions(
      'bfd1:\nIP address                Interface  State      Since         Interval  Timeout\n10.213.0.4                eth0       Up         11:20:50.287    0.300    0.900\n',
    );
    expect(bfd).toEqual([{ address: '10.213.0.4', interface: 'eth0', state: 'Up', intervalMs: 300, timeoutMs: 900 }]);
  });

  it('reads GoBGP JSON and the kernel table', () => {
    const rib = parseGobgpRib({
      [SERVICE_V6]: [
        {
          best: true,
          'neighbor-ip': '10.213.0.1',
          attrs: [
            { type: 1, value: 0 },
            { type: 2, as_paths: [{ type: 2, asns: [64512] }] },
            { type: 5, value: 200 },
            { type: 8, communities: [4259840100] },
            { type: 14, nexthop: 'fd00:213::1' },
          ],
        },
      ],
    });
    expect(rib).toEqual([
      {
        prefix: SERVICE_V6,
        nextHop: 'fd00:213::1',
        peer: '10.213.0.1',
        asPath: [64512],
        origin: 'igp',
        communities: [COMMUNITY],
        largeCommunities: [],
        localPref: 200,
        best: true,
      },
    ]);
    const [peer] = parseGobgpNeighbors([
      { conf: { peer_asn: 64512 }, state: { neighbor_address: '10.213.0.1', session_state: 6 }, afi_safis: [{ state: { accepted: 2 } }] },
    ]);
    expect(peer).toEqual({ address: '10.213.0.1', remoteAs: 64512, state: 'established', established: true, prefixesReceived: 2 });
    const kernel = [
      { dst: '10.213.0.200', nexthops: [{ gateway: '10.213.0.2' }, { gateway: '10.213.0.1' }] },
      { dst: '10.213.0.0/24', dev: 'eth0' },
    ];
    expect(parseIpRouteJson(kernel, SERVICE_V4)).toEqual(['10.213.0.1', '10.213.0.2']);
  });

  it('replays an ExaBGP JSON stream into held paths, sessions and updates', () => {
    const neighbor = (extra: object) => ({
      address: { local: '10.213.0.5', peer: '10.213.0.1' },
      asn: { local: 64513, peer: 64512 },
      ...extra,
    });
    const lines = [
      { time: 1, type: 'state', neighbor: neighbor({ state: 'up' }) },
      {
        time: 2,
        type: 'update',
        neighbor: neighbor({
          message: {
            update: {
              attribute: { origin: 'igp', 'as-path': [64512], community: [[65000, 100]], 'large-community': [[64512, 1, 2]] },
              announce: { 'ipv4 unicast': { '10.213.0.1': [{ nlri: SERVICE_V4 }, { nlri: AGGREGATE_V4 }] } },
            },
          },
        }),
      },
      { time: 3, type: 'update', neighbor: neighbor({ message: { update: { withdraw: { 'ipv4 unicast': [{ nlri: AGGREGATE_V4 }] } } } }) },
    ].map((l) => JSON.stringify(l));
    const log = parseExabgpLog(`${lines.join('\n')}\n{"trunc`);
    expect(log.routes).toEqual([
      {
        prefix: SERVICE_V4,
        nextHop: '10.213.0.1',
        peer: '10.213.0.1',
        asPath: [64512],
        origin: 'igp',
        communities: [COMMUNITY],
        largeCommunities: [LARGE_COMMUNITY],
      },
    ]);
    expect(log.sessions).toEqual([{ address: '10.213.0.1', remoteAs: 64512, state: 'up', established: true, prefixesReceived: 1 }]);
    expect(log.updates.map((u) => [u.time, u.announced.length, u.withdrawn])).toEqual([
      [2, 2, []],
      [3, 0, [AGGREGATE_V4]],
    ]);
    expect(log.unparsed).toEqual(['{"trunc']);
  });
});

const skipWhy = routerLabSkipReason(['frr', 'bird', 'gobgp', 'exabgp']);
if (skipWhy) console.warn(`skipping the live part of test/interop/bgp-routers.test.ts: ${skipWhy}`);

/** GoBGP dials 5-10 s after it starts (then every second); the rest is milliseconds. Generous for slow CI. */
const CONVERGE_MS = 40_000;
const LAB_TEST_MS = 60_000;

describe.skipIf(skipWhy !== undefined)('router harness in a lab: GoBGP as the speaker, against FRR, BIRD, GoBGP and ExaBGP', () => {
  let lab: NetnsLab;
  let nodes: LabHost[];
  const stops: (() => void)[] = [];
  let speakers: GobgpRouter[];
  let frr: FrrRouter;
  let frrIbgp: FrrRouter;
  let bird: BirdRouter;
  let gobgpPeer: GobgpRouter;
  let exabgp: ExabgpReceiver;
  const timings: Record<string, number> = {};
  let t0 = 0;

  const mark = (what: string) => {
    timings[what] = Date.now() - t0;
  };
  const track = <T extends { stop(): void }>(router: T): T => {
    stops.push(() => router.stop());
    return router;
  };
  const withLogs = async <T>(what: string, check: () => T | undefined | false): Promise<T> => {
    try {
      return await waitFor(what, check, CONVERGE_MS);
    } catch (error) {
      const logs = [frr, frrIbgp, bird, gobgpPeer, exabgp, ...(speakers ?? [])]
        .filter(Boolean)
        .map((r) => `--- ${r.host.netns}\n${r.log().slice(-2000)}`)
        .join('\n');
      throw new Error(`${(error as Error).message}\n${logs}`);
    }
  };

  beforeAll(async () => {
    t0 = Date.now();
    lab = new NetnsLab();
    nodes = [lab.addHost('node1'), lab.addHost('node2')];
    const [frrHost, birdHost, exaHost, ibgpHost, gobgpHost] = ['frr', 'bird', 'exabgp', 'frribgp', 'gobgp'].map((name) =>
      lab.addHost(name),
    ) as [LabHost, LabHost, LabHost, LabHost, LabHost];
    const fromNodes = nodes.map((n) => ({ address: n.ipv4, asn: NODE_ASN }));
    const bfd = { profile: 'fast', receiveMs: 300, transmitMs: 300, multiplier: 3 };
    [frr, frrIbgp, bird, gobgpPeer, exabgp] = await Promise.all([
      startFrr(lab, frrHost, {
        asn: ROUTER_ASN,
        routerId: frrHost.ipv4,
        ipv6: true,
        prefixList32Only: true,
        neighbors: fromNodes.map((n) => ({ ...n, bfdProfile: 'fast' })),
        bfd: { ...bfd, staticPeers: [birdHost.ipv4] },
      }).then(track),
      startFrr(lab, ibgpHost, { asn: NODE_ASN, routerId: ibgpHost.ipv4, listenRange: { prefix: '10.213.0.0/24', asn: NODE_ASN } }).then(
        track,
      ),
      startBird(lab, birdHost, {
        asn: ROUTER_ASN,
        routerId: birdHost.ipv4,
        ipv6: true,
        neighbors: fromNodes,
        bfd: { intervalMs: 300, multiplier: 3, sessions: false, staticPeers: [frrHost.ipv4] },
      }).then(track),
      startGobgp(lab, gobgpHost, {
        asn: ROUTER_ASN,
        routerId: gobgpHost.ipv4,
        neighbors: [{ address: nodes[0]!.ipv4, asn: NODE_ASN, passive: true }],
      }).then(track),
      startExabgp(lab, exaHost, {
        asn: ROUTER_ASN,
        routerId: exaHost.ipv4,
        ipv6: true,
        neighbors: [{ address: nodes[0]!.ipv4, asn: NODE_ASN }],
      }).then(track),
    ]);
    const routers = [frrHost, birdHost].map((h) => ({ address: h.ipv4, asn: ROUTER_ASN }));
    speakers = await Promise.all(
      nodes.map((node, i) =>
        startGobgp(lab, node, {
          asn: NODE_ASN,
          routerId: node.ipv4,
          ipv6: true,
          importHostRoutesOnly: false,
          neighbors: [
            ...routers,
            ...(i === 0
              ? [
                  { address: exaHost.ipv4, asn: ROUTER_ASN },
                  { address: gobgpHost.ipv4, asn: ROUTER_ASN },
                  { address: ibgpHost.ipv4, asn: NODE_ASN },
                ]
              : []),
          ],
        }).then(track),
      ),
    );
    mark('routers and speakers started');
    for (const [i, speaker] of speakers.entries()) {
      speaker.announce(AGGREGATE_V4);
      speaker.announce(SERVICE_V4, { communities: [COMMUNITY], largeCommunities: [LARGE_COMMUNITY], localPref: 200 });
      speaker.announce(SERVICE_V6, { nextHop: nodes[i]!.ipv6 });
    }
    await withLogs(
      'every session to be established',
      () =>
        frr.bgpSummary().peers.filter((p) => p.established).length === 4 && // two nodes x two families
        bird.sessions().filter((s) => s.established).length === 2 &&
        exabgp.sessions().some((s) => s.established) &&
        gobgpPeer.neighbors().some((s) => s.established) &&
        frrIbgp.bgpSummary().peers.some((p) => p.established),
    );
    mark('all sessions established');
  }, 90_000);

  afterAll(() => {
    for (const stop of stops.reverse()) stop();
    lab?.destroy();
    if (Object.keys(timings).length > 0) console.log(`bgp-routers lab timings (ms since start): ${JSON.stringify(timings)}`);
  });

  const nodeHops = () => nodes.map((n) => n.ipv4).sort();
  const expectMetalLBAttributes = (paths: readonly RouterPath[]) => {
    for (const path of paths)
      expect(path).toMatchObject({ asPath: [NODE_ASN], origin: 'igp', communities: [COMMUNITY], largeCommunities: [LARGE_COMMUNITY] });
  };

  it(
    'FRR with a passive peer group and /32-only policy: both sessions, the /32 installed with both next hops and its communities, the /30 refused',
    async () => {
      const paths = await withLogs('FRR to hold the /32 from both nodes', () =>
        frr.routes(SERVICE_V4).length === 2 ? frr.routes(SERVICE_V4) : undefined,
      );
      mark('FRR holds the /32 from both nodes');
      expect(nextHopsOf(paths)).toEqual(nodeHops());
      expectMetalLBAttributes(paths);
      expect(paths.every((p) => p.localPref === undefined)).toBe(true); // eBGP: LOCAL_PREF is not sent
      expect(paths.every((p) => p.multipath)).toBe(true);
      expect(
        await withLogs('zebra to install both next hops', () =>
          frr.installedNextHops(SERVICE_V4).length === 2 ? frr.installedNextHops(SERVICE_V4) : undefined,
        ),
      ).toEqual(nodeHops());
      expect(frr.routes(AGGREGATE_V4)).toEqual([]);
      expect(frr.installedNextHops(AGGREGATE_V4)).toEqual([]);
      const v4 = frr.bgpSummary().peers.filter((p) => p.family === 'ipv4');
      expect(v4.map((p) => [p.address, p.established, p.prefixesReceived])).toEqual(nodes.map((n) => [n.ipv4, true, 1]));
    },
    LAB_TEST_MS,
  );

  it(
    'FRR installs the IPv6 /128 received over MP-BGP with both IPv6 next hops',
    async () => {
      const hops = await withLogs('zebra to install the /128', () =>
        frr.installedNextHops(SERVICE_V6).length === 2 ? frr.installedNextHops(SERVICE_V6) : undefined,
      );
      expect(hops).toEqual(nodes.map((n) => n.ipv6).sort());
      expect(nextHopsOf(frr.routes(SERVICE_V6))).toEqual(hops);
    },
    LAB_TEST_MS,
  );

  it(
    'FRR bfdd: the profile is applied, a session to BIRD comes up, the GoBGP neighbors (no BFD) stay down',
    async () => {
      const up = await withLogs('a BFD session up between FRR and BIRD', () => frr.bfdPeers().find((p) => p.status === 'up'));
      mark('BFD up between FRR and BIRD');
      expect(up).toMatchObject({ receiveMs: 300, transmitMs: 300, multiplier: 3, remoteReceiveMs: 300 });
      expect(bird.bfdSessions().some((s) => s.state === 'Up' && s.intervalMs === 300)).toBe(true);
      const toNodes = frr.bfdPeers().filter((p) => nodes.some((n) => n.ipv4 === p.peer));
      expect(toNodes.map((p) => p.status)).toEqual(['down', 'down']);
    },
    LAB_TEST_MS,
  );

  it(
    'FRR over iBGP with a listen range: a dynamic session, LOCAL_PREF 200 on the path',
    async () => {
      const [path] = await withLogs('the iBGP router to hold the /32', () =>
        frrIbgp.routes(SERVICE_V4).length > 0 ? frrIbgp.routes(SERVICE_V4) : undefined,
      );
      expect(path).toMatchObject({ nextHop: nodes[0]!.ipv4, asPath: [], localPref: 200, communities: [COMMUNITY] });
      expect(frrIbgp.bgpSummary().peers).toMatchObject([{ address: nodes[0]!.ipv4, dynamic: true, established: true }]);
    },
    LAB_TEST_MS,
  );

  it(
    'BIRD 2: both sessions, both next hops in the kernel (ECMP), the /30 refused, the /128 held',
    async () => {
      const paths = await withLogs('BIRD to hold the /32 from both nodes', () =>
        bird.routes(SERVICE_V4).length === 2 ? bird.routes(SERVICE_V4) : undefined,
      );
      mark('BIRD holds the /32 from both nodes');
      expect(nextHopsOf(paths)).toEqual(nodeHops());
      expectMetalLBAttributes(paths);
      expect(
        await withLogs('the kernel to hold both next hops', () =>
          bird.installedNextHops(SERVICE_V4).length === 2 ? bird.installedNextHops(SERVICE_V4) : undefined,
        ),
      ).toEqual(nodeHops());
      expect(bird.routes(AGGREGATE_V4)).toEqual([]);
      expect(nextHopsOf(bird.routes(SERVICE_V6))).toEqual(nodes.map((n) => n.ipv6).sort());
    },
    LAB_TEST_MS,
  );

  it(
    'GoBGP as the peer: the /32 with its attributes, the /30 refused by its import policy',
    async () => {
      const [path] = await withLogs('GoBGP to hold the /32', () =>
        gobgpPeer.routes(SERVICE_V4).length > 0 ? gobgpPeer.routes(SERVICE_V4) : undefined,
      );
      expect(path).toMatchObject({
        nextHop: nodes[0]!.ipv4,
        peer: nodes[0]!.ipv4,
        asPath: [NODE_ASN],
        communities: [COMMUNITY],
        largeCommunities: [LARGE_COMMUNITY],
      });
      expect(path?.localPref).toBeUndefined();
      expect(gobgpPeer.routes(AGGREGATE_V4)).toEqual([]);
    },
    LAB_TEST_MS,
  );

  it(
    "GoBGP streams an MRT table dump (bench/bgp's route source): 50 more /32s reach FRR's kernel",
    async () => {
      const prefixes = hostRoutes(50, '10.214.0.0');
      const dump = encodeHostRoutesDump({
        prefixes,
        nextHop: nodes[1]!.ipv4,
        peerAddress: nodes[1]!.ipv4,
        peerAs: NODE_ASN,
        communities: [COMMUNITY],
        timestamp: Math.floor(Date.now() / 1000),
      });
      const injection = speakers[1]!.injectMrt(dump);
      try {
        // 50 dump routes plus the service /32 (the /30 is refused).
        await withLogs('zebra to hold the 51 BGP routes', () => frr.zebraBgpCounts(4).fib === 51);
      } finally {
        await injection.finish();
      }
      expect(frr.routes(prefixes[49]!)).toMatchObject([{ nextHop: nodes[1]!.ipv4, asPath: [NODE_ASN], communities: [COMMUNITY] }]);
    },
    LAB_TEST_MS,
  );

  it(
    'ExaBGP receives everything as sent, the /30 too, and then the withdrawal of the /32',
    async () => {
      await withLogs(
        'ExaBGP to receive the /32, the /30 and the /128',
        () => exabgp.routes(SERVICE_V4).length === 1 && exabgp.routes(AGGREGATE_V4).length === 1 && exabgp.routes(SERVICE_V6).length === 1,
      );
      expectMetalLBAttributes(exabgp.routes(SERVICE_V4));
      expect(exabgp.routes(SERVICE_V6)[0]?.nextHop).toBe(nodes[0]!.ipv6);
      // The withdrawal: ExaBGP sees it, FRR drops that node's path and keeps the other.
      const before = exabgp.received().updates.length;
      speakers[0]!.withdraw(SERVICE_V4);
      const withdrawnAt = Date.now();
      await withLogs('ExaBGP to see the withdrawal', () => exabgp.routes(SERVICE_V4).length === 0);
      expect(
        exabgp
          .received()
          .updates.slice(before)
          .some((u) => u.withdrawn.includes(SERVICE_V4)),
      ).toBe(true);
      await withLogs('FRR to keep only the other node', () => frr.installedNextHops(SERVICE_V4).length === 1);
      timings['withdrawal reached FRR zebra (ms after withdraw)'] = Date.now() - withdrawnAt;
      expect(frr.installedNextHops(SERVICE_V4)).toEqual([nodes[1]!.ipv4]);
    },
    LAB_TEST_MS,
  );
});
