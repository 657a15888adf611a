// MetalLB v0.16.1 validateBGPAdvPerPool: two BGPAdvertisements of one pool giving a common peer different
// LOCAL_PREFs for the same prefixes from a common node are refused at load; every other pair loads. The pairs
// the parser cannot judge (serviceSelectors) still load and the election names them conflictingAdvertisements.
import { describe, expect, it } from 'vitest';
import { Reason, bgpShouldAnnounce } from '../../src/election';
import { POOL, parseErrors, parseOk, where } from './parse-helpers';

const DOC = '---\n';

function ad(name: string, spec: string): string {
  return `${DOC}apiVersion: metallb.io/v1beta1\nkind: BGPAdvertisement\nmetadata:\n  name: ${name}\nspec:\n${spec}`;
}

function node(name: string, rack: string): string {
  return `${DOC}apiVersion: v1\nkind: Node\nmetadata:\n  name: ${name}\n  labels:\n    rack: ${rack}\n`;
}

const rack = (r: string): string => `  nodeSelectors:\n    - matchLabels:\n        rack: ${r}\n`;
const V4 = POOL('public', '203.0.113.0/28');
const DUAL = POOL('public', '203.0.113.0/28', '2001:db8:1::/120');

function conflicts(text: string): string[] {
  const result = parseErrors(text).filter((d) => d.code === 'conflictingLocalPref');
  return result.map((d) => d.message);
}

describe('BGPAdvertisement LOCAL_PREF conflicts', () => {
  it('refuses the later of two advertisements to every peer from every node, at its localPref', () => {
    const errors = parseErrors(`${V4}${ad('a', '  localPref: 100\n')}${ad('b', '  localPref: 200\n')}`);
    expect(where(errors)).toEqual(['21:14 conflictingLocalPref']);
    expect(errors[0]?.message).toMatch(/^invalid local preference 200: local preferernce 100 was already set/);
  });

  it("an unset localPref is 0, as in MetalLB, and the error points at the advertisement's spec", () => {
    const errors = parseErrors(`${V4}${ad('a', '  localPref: 100\n')}${ad('b', '  ipAddressPools: [public]\n')}`);
    expect(errors.map((e) => e.message.slice(0, 70))).toEqual(['invalid local preference 0: local preferernce 100 was already set for ']);
    expect(where(errors)).toEqual(['20:1 conflictingLocalPref']);
  });

  it('loads pairs that do not give one router two values for one prefix', () => {
    // Same LOCAL_PREF.
    parseOk(`${V4}${ad('a', '  localPref: 100\n')}${ad('b', '  localPref: 100\n')}`);
    // Different pools.
    parseOk(
      `${V4}${POOL('other', '198.51.100.0/28').replace('apiVersion', `${DOC}apiVersion`)}` +
        `${ad('a', '  ipAddressPools: [public]\n  localPref: 100\n')}${ad('b', '  ipAddressPools: [other]\n  localPref: 200\n')}`,
    );
    // Disjoint peer lists.
    parseOk(`${V4}${ad('a', '  peers: [tor-a]\n  localPref: 100\n')}${ad('b', '  peers: [tor-b]\n  localPref: 200\n')}`);
    // Different aggregation lengths (different prefixes).
    parseOk(`${V4}${ad('a', '  localPref: 100\n')}${ad('b', '  aggregationLength: 30\n  localPref: 200\n')}`);
    // Documented nodes that no node shares.
    parseOk(
      `${V4}${node('n1', 'a')}${node('n2', 'b')}${ad('a', `${rack('a')}  localPref: 100\n`)}${ad('b', `${rack('b')}  localPref: 200\n`)}`,
    );
    // Two node-selective advertisements and no Node documented: nothing shows a common node.
    parseOk(`${V4}${ad('a', `${rack('a')}  localPref: 100\n`)}${ad('b', `${rack('b')}  localPref: 200\n`)}`);
  });

  it('a dual-stack pool collides unless both aggregation lengths differ (config.go isAggrLengthDifferent)', () => {
    expect(conflicts(`${DUAL}${ad('a', '  localPref: 100\n')}${ad('b', '  aggregationLength: 30\n  localPref: 200\n')}`)).toHaveLength(1);
    parseOk(`${DUAL}${ad('a', '  localPref: 100\n')}${ad('b', '  aggregationLength: 30\n  aggregationLengthV6: 124\n  localPref: 200\n')}`);
  });

  it('peers: an empty list is every peer, so it meets any list; named lists must share one', () => {
    expect(conflicts(`${V4}${ad('a', '  localPref: 100\n')}${ad('b', '  peers: [tor-b]\n  localPref: 200\n')}`)[0]).toContain(
      'to peer tor-b from every node',
    );
    expect(
      conflicts(
        `${V4}${ad('a', '  peers: [tor-a, tor-b]\n  localPref: 100\n')}${ad('b', '  peers: [tor-b, tor-c]\n  localPref: 200\n')}`,
      )[0],
    ).toContain('to peer tor-b from every node');
  });

  it('nodes: every node meets a selective advertisement, even with no Node documented', () => {
    expect(conflicts(`${V4}${ad('a', '  localPref: 100\n')}${ad('b', `${rack('b')}  localPref: 200\n`)}`)[0]).toContain(
      'from the nodes "b" selects',
    );
    expect(
      conflicts(`${V4}${node('n1', 'a')}${node('n2', 'b')}${ad('a', '  localPref: 100\n')}${ad('b', `${rack('b')}  localPref: 200\n`)}`)[0],
    ).toContain('from node n2,');
    // An empty selector is labels.Everything().
    expect(conflicts(`${V4}${ad('a', '  nodeSelectors:\n    - {}\n  localPref: 100\n')}${ad('b', '  localPref: 200\n')}`)[0]).toContain(
      'from every node,',
    );
  });

  it('reports each pair once, however many pools they share', () => {
    const two = `${V4}${POOL('other', '198.51.100.0/28').replace('apiVersion', `${DOC}apiVersion`)}`;
    expect(conflicts(`${two}${ad('a', '  localPref: 100\n')}${ad('b', '  localPref: 200\n')}`)).toHaveLength(1);
    expect(
      conflicts(`${two}${ad('a', '  localPref: 100\n')}${ad('b', '  localPref: 200\n')}${ad('c', '  localPref: 300\n')}`),
    ).toHaveLength(3);
  });

  it('serviceSelectors: loads, as in MetalLB, with a warning; the election refuses to announce (conflictingAdvertisements)', () => {
    const snapshot = parseOk(
      `${V4}${ad('a', '  localPref: 100\n')}` +
        `${ad('b', '  serviceSelectors:\n    - matchLabels:\n        app: web\n  localPref: 200\n')}` +
        `${DOC}apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: demo\n  labels:\n    app: web\n` +
        'spec:\n  type: LoadBalancer\n  ports:\n    - port: 80\nstatus:\n  loadBalancer:\n    ingress:\n      - ip: 203.0.113.5\n' +
        node('n1', 'a'),
    );
    expect(snapshot.warnings.map((w) => w.code)).toEqual(['serviceLocalPrefConflict']);
    const [service] = snapshot.services;
    const decision = bgpShouldAnnounce(snapshot, { service: service!, endpoints: { servingNodes: new Set(['n1']) } }, 'n1', undefined);
    expect(decision.reason).toBe(Reason.conflictingAdvertisements);
  });
});
