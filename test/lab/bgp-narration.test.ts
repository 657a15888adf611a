import { describe, expect, it } from 'vitest';
import {
  answersByNode,
  bfdText,
  ecmpText,
  hostText,
  listText,
  meanwhileText,
  resetReasonText,
  returnText,
  sessionsText,
  throughRouterText,
  withdrawalText,
} from '../../src/cli/lab/bgp-narration';
import type { ProbeSample } from '../../src/cli/lab/probe-samples';

const hosts = [
  { name: 'node-1', ipv4: '172.31.213.11' },
  { name: 'node-2', ipv4: '172.31.213.12' },
  { name: 'node-3', ipv4: '172.31.213.13' },
];
const answer = (node: string, t = 0): ProbeSample => ({ t, sent: t, ok: true, node });
const failure = (t = 0): ProbeSample => ({ t, sent: t, ok: false, error: 'timeout' });

describe("the BGP demo's sentences", () => {
  it('names next hops and peers by the lab host that has the address, and lists them in plain words', () => {
    expect(hostText(hosts, '172.31.213.12')).toBe('node-2 172.31.213.12');
    expect(hostText(hosts, '10.0.0.1')).toBe('10.0.0.1');
    expect(listText(['a'])).toBe('a');
    expect(listText(['a', 'b', 'c'])).toBe('a, b and c');
    expect(listText([])).toBe('nothing');
  });

  it('says which sessions FRR has Established, with the hold time bgpd negotiated', () => {
    expect(sessionsText(hosts, ['172.31.213.11', '172.31.213.12'], 90_000)).toBe(
      'FRR (show bgp summary): sessions Established with node-1 172.31.213.11 and node-2 172.31.213.12 (hold time 90 s)',
    );
    expect(sessionsText(hosts, ['172.31.213.11'])).not.toContain('hold time');
  });

  it('says what BFD buys (the detection time), and which nodes have no BFD session', () => {
    const profile = { receiveMs: 300, multiplier: 3 };
    expect(bfdText(hosts, ['172.31.213.11', '172.31.213.12'], 2, profile)).toBe(
      'bfdd (show bfd peers): BFD up with node-1 172.31.213.11 and node-2 172.31.213.12, 300 ms x 3: a silent node is declared down after 0.90 s',
    );
    expect(bfdText(hosts, ['172.31.213.11'], 3, profile)).toContain('(2 of 3 not up)');
    expect(bfdText(hosts, [], 2, profile)).toContain('BFD up with no node (2 of 2 not up)');
  });

  it('calls a route with several next hops ECMP, and one with a single next hop not', () => {
    const text = ecmpText(hosts, 'demo/web-bgp', '172.31.214.10/32', ['172.31.213.11', '172.31.213.12']);
    expect(text).toBe(
      "zebra (show ip route 172.31.214.10/32 json): demo/web-bgp's 172.31.214.10/32 installed with 2 next hops, " +
        'node-1 172.31.213.11 and node-2 172.31.213.12 (ECMP: the router spreads traffic over every node)',
    );
    expect(ecmpText(hosts, 'demo/web-bgp', '172.31.214.10/32', ['172.31.213.11'])).toMatch(/with 1 next hop, node-1 172\.31\.213\.11$/);
  });

  it("counts the client's answers per node, in node order, and says how many failed", () => {
    const samples = [answer('node-2'), answer('node-10'), answer('node-1'), answer('node-2'), failure()];
    expect(answersByNode(samples)).toBe('node-1 (1), node-2 (2), node-10 (1)');
    expect(
      throughRouterText({
        subnet: '172.31.214.0/24',
        router: { name: 'router', ipv4: '172.31.213.1' },
        url: 'http://172.31.214.10/',
        samples,
      }),
    ).toBe(
      'the client routes 172.31.214.0/24 via the router 172.31.213.1: 5 requests to http://172.31.214.10/ answered by node-1 (1), node-2 (2), node-10 (1); 1 failed',
    );
    expect(throughRouterText({ subnet: 's', router: { name: 'router', ipv4: 'r' }, url: 'u', samples: [failure()] })).toContain(
      'answered by nobody; 1 failed',
    );
  });

  it("puts the withdrawal time beside the BFD detection time and the hold time, with bgpd's reason", () => {
    const text = withdrawalText(hosts, {
      node: 'node-3',
      withdrawnAfterMs: 930,
      reason: 'Cease/BFD Down notification sent',
      detectionMs: 900,
      holdTimeMs: 90_000,
      remaining: ['172.31.213.11', '172.31.213.12'],
    });
    expect(text).toBe(
      "FRR withdrew node-3's path 0.93 s later (bgpd: Cease/BFD Down notification sent): BFD's 0.90 s detection, " +
        'not the 90 s hold time; next hops now node-1 172.31.213.11 and node-2 172.31.213.12',
    );
  });

  it("reads bgpd's reset reason and last NOTIFICATION as one phrase", () => {
    expect(resetReasonText('BGP Notification send', 'Cease/BFD Down')).toBe('Cease/BFD Down notification sent');
    expect(resetReasonText('BGP Notification received', 'Hold Timer Expired')).toBe('Hold Timer Expired notification received');
    expect(resetReasonText('Peer closed the session', 'Cease/BFD Down')).toBe('Peer closed the session; last notification Cease/BFD Down');
    expect(resetReasonText('Peer closed the session', undefined)).toBe('Peer closed the session');
    expect(resetReasonText(undefined, undefined)).toBeUndefined();
  });

  it('says what the client felt while the dead node was still a next hop', () => {
    expect(meanwhileText(0, 40)).toBe('the client lost no request meanwhile (40 answered)');
    expect(meanwhileText(1, 30)).toBe('the client: 1 request failed meanwhile (those the router still sent to the dead node), 30 answered');
  });

  it('times the return from the link coming up, then the path after the session', () => {
    expect(returnText(hosts, 'node-3', 310, 30, ['172.31.213.11', '172.31.213.13'])).toBe(
      "node-3's session is Established again 0.31 s after its link came up, and its path is back in zebra 0.03 s later; " +
        'next hops node-1 172.31.213.11 and node-3 172.31.213.13',
    );
  });
});
