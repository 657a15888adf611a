/**
 * `mlb lab up --bgp` as data: the router in the plan, the BGP objects in the lab's YAML, and the router's FRR
 * configuration, all without root.
 */
import { describe, expect, it } from 'vitest';
import { cidrContains, formatIP, parseCIDR, parseIP } from '../../src/ip';
import { formatDiagnostic, parseConfig } from '../../src/model';
import { renderFrrConfig, renderFrrDaemonConfigs } from '../../src/cli/lab/frr-config';
import { parseFrrNeighbor } from '../../src/cli/lab/frr-json';
import {
  LAB_BFD_PROFILE,
  LAB_BGP_SUBNET_V4,
  LAB_NODE_ASN,
  LAB_ROUTER_ASN,
  bfdDetectionMs,
  labFrrOptions,
  routerOf,
} from '../../src/cli/lab/lab-bgp';
import { LabService, expectedServiceIPs, labConfigText } from '../../src/cli/lab/lab-config';
import { LabError } from '../../src/cli/lab/lab-errors';
import { LAB_SUBNET_V4, MAX_LAB_NODES, hostByMac, isLabNamespace, labHosts, labNamespaces, planLab } from '../../src/cli/lab/lab-plan';
import { frrMissingMessage } from '../../src/cli/lab/lab-router';
import { RouterError } from '../../src/cli/lab/router-error';

const inCIDR = (ip: string, cidr: string) => cidrContains(parseCIDR(cidr)!, parseIP(ip)!);

describe("the lab's router in the plan (--bgp)", () => {
  const plan = planLab({ name: 'mlb-lab', nodes: 3, dir: '/run/lab', bgp: true });

  it('is .1 on the lab segment, in <name>-router, its files under the lab directory', () => {
    expect(plan.router).toMatchObject({
      name: 'router',
      netns: 'mlb-lab-router',
      ipv4: '172.31.213.1',
      mac: '02:6d:6c:62:00:01',
      dir: '/run/lab/router',
    });
    expect(inCIDR(plan.router!.ipv4, LAB_SUBNET_V4)).toBe(true);
    expect(hostByMac(plan, '02:6d:6c:62:00:01')?.name).toBe('router');
  });

  it('shares no address, MAC or bridge port with any other host, even at the largest size', () => {
    const hosts = labHosts(planLab({ name: 'big', nodes: MAX_LAB_NODES, bgp: true }));
    for (const field of ['ipv4', 'ipv6', 'mac', 'bridgePort', 'netns'] as const) {
      expect(new Set(hosts.map((h) => h[field])).size, field).toBe(hosts.length);
    }
  });

  it("is one of the lab's namespaces, deleted before the bridge, and down() recognises it without a state file", () => {
    expect(labNamespaces(plan)).toEqual([
      'mlb-lab-client',
      'mlb-lab-router',
      'mlb-lab-node-1',
      'mlb-lab-node-2',
      'mlb-lab-node-3',
      'mlb-lab-br',
    ]);
    expect(isLabNamespace('mlb-lab', 'mlb-lab-router')).toBe(true);
    expect(isLabNamespace('mlb-lab', 'mlb-lab-router2')).toBe(false);
  });

  it('is absent without --bgp, and a BGP step on such a lab says how to get one', () => {
    const plain = planLab({ name: 'mlb-lab' });
    expect(plain.router).toBeUndefined();
    expect(labNamespaces(plain)).not.toContain('mlb-lab-router');
    expect(() => routerOf(plain)).toThrow(LabError);
    expect(() => routerOf(plain)).toThrow(/build it with --bgp/);
  });
});

describe('the lab configuration with --bgp', () => {
  const plan = planLab({ nodes: 3, bgp: true });
  const text = labConfigText(plan);
  const parsed = parseConfig(text, 'mlb.yaml');

  it('validates with no error and no warning', () => {
    expect(parsed.diagnostics.filter((d) => d.severity !== 'note').map(formatDiagnostic)).toEqual([]);
    expect(parsed.ok).toBe(true);
  });

  it("peers every node with the router, BFD 300 ms x 3, MetalLB's 90 s hold time", () => {
    if (!parsed.ok) throw new Error('invalid');
    const s = parsed.snapshot;
    expect(s.bgpPeers).toHaveLength(1);
    expect(s.bgpPeers[0]).toMatchObject({
      myASN: LAB_NODE_ASN,
      peerASN: LAB_ROUTER_ASN,
      bfdProfile: LAB_BFD_PROFILE.name,
      holdTimeMs: 90_000,
    });
    expect(formatIP(s.bgpPeers[0]!.peerAddress!)).toBe(plan.router!.ipv4);
    expect(s.bfdProfiles).toHaveLength(1);
    expect(s.bfdProfiles[0]).toMatchObject({ receiveInterval: 300, transmitInterval: 300, detectMultiplier: 3 });
    expect(s.bgpAdvertisements).toHaveLength(1);
  });

  it('gives the BGP service a routed address off the lab segment, and leaves the L2 services where they were', () => {
    const ips = expectedServiceIPs(text);
    const routed = ips.get(LabService.bgp)?.[0] ?? '';
    expect(inCIDR(routed, LAB_BGP_SUBNET_V4)).toBe(true);
    expect(inCIDR(routed, LAB_SUBNET_V4)).toBe(false);
    const plain = expectedServiceIPs(labConfigText(planLab({ nodes: 3 })));
    for (const [key, value] of plain) expect(ips.get(key), key).toEqual(value);
  });
});

describe("the router's FRR configuration (passive peer group, RFC 8212 policies, /32 only, BFD)", () => {
  const plan = planLab({ nodes: 2, bgp: true });
  const conf = renderFrrConfig(labFrrOptions(plan));

  it('waits for the nodes in a passive peer group, with RFC 8212 policies and a /32-only prefix list', () => {
    expect(conf).toContain(`router bgp ${LAB_ROUTER_ASN}`);
    expect(conf).toContain(' bgp router-id 172.31.213.1');
    expect(conf).toContain(' no bgp default ipv4-unicast');
    expect(conf).toContain(` neighbor METALLB remote-as ${LAB_NODE_ASN}`);
    expect(conf).toContain(' neighbor METALLB passive');
    for (const node of plan.nodes) {
      expect(conf).toContain(` neighbor ${node.ipv4} peer-group METALLB`);
      expect(conf).toContain(` neighbor ${node.ipv4} bfd profile lab-fast`);
    }
    expect(conf).toContain('  neighbor METALLB route-map METALLB-IN in');
    expect(conf).toContain('  neighbor METALLB route-map DENY-ALL out');
    expect(conf).toContain('ip prefix-list METALLB-IN seq 10 permit 0.0.0.0/0 ge 32');
  });

  it("runs bfdd with the same profile as the lab's BFDProfile", () => {
    const files = renderFrrDaemonConfigs(labFrrOptions(plan));
    expect(files.bfdd).toContain(' profile lab-fast\n  receive-interval 300\n  transmit-interval 300\n  detect-multiplier 3\n');
    expect(bfdDetectionMs()).toBe(900);
  });

  it('tells a user without FRR what to install', () => {
    expect(frrMissingMessage('/usr/lib/frr/bgpd missing')).toMatch(/install frr \(apt-get install frr\)$/);
  });
});

describe('parseFrrNeighbor (show bgp neighbors <address> json, FRR 8.4.4)', () => {
  // Captured in the lab after node-2's link went down (trimmed to the fields read, plus neighbours of them).
  const afterBfdDown = {
    '172.31.213.12': {
      remoteAs: 64512,
      localAs: 64513,
      bgpState: 'Idle',
      bgpTimerHoldTimeMsecs: 180000,
      connectionsDropped: 1,
      lastErrorCodeSubcode: '060A',
      lastNotificationReason: 'Cease/BFD Down',
      lastResetDueTo: 'BGP Notification send',
      lastResetCode: 14,
      peerBfdInfo: {
        type: 'single hop',
        detectMultiplier: 3,
        rxMinInterval: 300,
        txMinInterval: 300,
        status: 'Down',
        lastUpdate: '0:00:00:01',
      },
    },
  };

  it("reads the state, the hold time, why the last session ended and BFD's status", () => {
    expect(parseFrrNeighbor(afterBfdDown, '172.31.213.12')).toEqual({
      address: '172.31.213.12',
      state: 'Idle',
      established: false,
      holdTimeMs: 180000,
      lastResetReason: 'BGP Notification send',
      lastNotification: 'Cease/BFD Down',
      bfdStatus: 'Down',
    });
  });

  it('answers undefined for a neighbor bgpd does not have, and fails loudly on a shape it does not know', () => {
    expect(parseFrrNeighbor({}, '172.31.213.12')).toBeUndefined();
    expect(() => parseFrrNeighbor({ '172.31.213.12': { state: 'Established' } }, '172.31.213.12')).toThrow(RouterError);
  });
});
