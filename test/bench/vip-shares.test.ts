// bench/failover and bench/gossip-soak with many services wait, between trials and before the soak, until every
// node holds its share of the VIPs: these are the rules that decide when that is (bench/scale/vip-shares.ts), and
// the per-host addresses that put the nodes in the VIPs' subnet (bench/scale/scale-config.ts).
import { describe, expect, it } from 'vitest';
import { NODE_VIP_SUBNET_ADDRESS, vipSubnetAddress } from '../../bench/scale/scale-config';
import { agreedShares, describeShares, shareMismatch, type OwnersView, type Shares } from '../../bench/scale/vip-shares';

const VIPS = ['10.214.16.1', '10.214.16.2', '10.214.16.3'];
const view = (node: string, owners: (string | null)[]): OwnersView => ({
  node,
  services: owners.map((owner, i) => ({ ips: [VIPS[i]!], protocol: 'layer2', owner })),
});
const settled: Shares = new Map([
  ['node-1', new Set(['10.214.16.1', '10.214.16.3'])],
  ['node-2', new Set(['10.214.16.2'])],
]);

describe('the nodes agreeing on who holds which VIP', () => {
  it('gives each node the VIPs all nodes name it the owner of', () => {
    const owners = ['node-1', 'node-2', 'node-1'];
    const shares = agreedShares(VIPS, [view('node-1', owners), view('node-2', owners)]);
    expect(shares).toEqual(settled);
    expect(describeShares(shares as Shares, ['node-1', 'node-2'])).toBe('node-1 2, node-2 1');
  });

  it('is not agreed while one node names another owner, or nobody, for one VIP', () => {
    const disputed = agreedShares(VIPS, [view('node-1', ['node-1', 'node-2', 'node-1']), view('node-2', ['node-1', 'node-2', 'node-2'])]);
    expect(disputed).toMatch(/^1 of 3 VIPs .*10\.214\.16\.3: node-1 says node-1, node-2 says node-2/);
    expect(typeof agreedShares(VIPS, [view('node-1', ['node-1', null, 'node-1']), view('node-2', ['node-1', null, 'node-1'])])).toBe(
      'string',
    );
  });

  it('is not agreed on an owner that is not one of the nodes looked at (a member that left)', () => {
    const owners = ['node-1', 'node-9', 'node-1'];
    expect(typeof agreedShares(VIPS, [view('node-1', owners), view('node-2', owners)])).toBe('string');
  });
});

describe('every node holding exactly its share', () => {
  const holds = (node: string, announced: string[], bound = announced) => ({ node, announced, bound });

  it('holds when each node binds and announces its share, whatever else it holds', () => {
    expect(
      shareMismatch(settled, [holds('node-1', ['10.213.0.210', '10.214.16.1', '10.214.16.3']), holds('node-2', ['10.214.16.2'])]),
    ).toBeUndefined();
  });

  it('does not hold while a restarted node has bound only part of its share', () => {
    const why = shareMismatch(settled, [holds('node-1', ['10.214.16.1']), holds('node-2', ['10.214.16.2'])]);
    expect(why).toContain('node-1 announces 1 of its 2, not 10.214.16.3');
  });

  it('does not hold while a VIP is announced but not yet bound', () => {
    const why = shareMismatch(settled, [
      holds('node-1', ['10.214.16.1', '10.214.16.3'], ['10.214.16.1']),
      holds('node-2', ['10.214.16.2']),
    ]);
    expect(why).toBe('node-1 binds 1 of its 2, not 10.214.16.3');
  });

  it("does not hold while a node still holds another node's VIP", () => {
    const why = shareMismatch(settled, [holds('node-1', ['10.214.16.1', '10.214.16.3']), holds('node-2', ['10.214.16.2', '10.214.16.3'])]);
    expect(why).toContain("node-2 announces 1 of its 1, and 1 of the others' (10.214.16.3)");
  });

  it('does not hold when a node did not say what it holds', () => {
    expect(shareMismatch(settled, [holds('node-1', ['10.214.16.1', '10.214.16.3'])])).toBe('node-2 did not say what it holds');
  });
});

describe("the hosts' addresses in the VIPs' subnet", () => {
  it('gives every host its own, bench/scale its single node the one it had', () => {
    expect([1, 2, 3].map(vipSubnetAddress)).toEqual(['10.214.0.1/18', '10.214.0.2/18', '10.214.0.3/18']);
    expect(NODE_VIP_SUBNET_ADDRESS).toBe('10.214.0.2/18');
    expect(() => vipSubnetAddress(0)).toThrow(RangeError);
  });
});
