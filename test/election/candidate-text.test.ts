// The sentences `mlb explain` and the TUI print beside each reason: they name the node they are about (never
// "this node": the explanation is one daemon's view of every node) and, for an owner that is not first in hash
// order, who was skipped before it and why.
import { describe, expect, it } from 'vitest';
import { candidateText, electAll, rankNodes, type ElectionConfig, type Explanation, type ServiceElectionInput } from '../../src/election';
import { l2Ad, node, pool, service } from './factories';

const names = ['alpha', 'bravo', 'charlie'];
const config: ElectionConfig = {
  nodes: names.map((n) => node(n)),
  pools: [pool('default', ['10.0.0.0/24'])],
  l2Advertisements: [l2Ad('all')],
  bgpAdvertisements: [],
  bgpPeers: [],
};
const web = service('demo/web', ['10.0.0.10']);
const order = rankNodes(names, '10.0.0.10');
const [first, second, third] = order as [string, string, string];
const passingOn = (serving: string[]): ServiceElectionInput => ({
  service: web,
  endpoints: { servingNodes: new Set(serving), healthChecked: true },
});

function explain(serving: string[]): Explanation {
  return electAll(config, [passingOn(serving)], new Set(names)).explain()[0]!;
}

const textOf = (e: Explanation, name: string) =>
  candidateText(
    e,
    e.candidates.find((c) => c.node === name)!,
  );

describe('candidateText', () => {
  it('an owner second in hash order says so, and why the first is not eligible', () => {
    const e = explain([second, third]);
    expect(e.winner).toBe(second);
    expect(textOf(e, second)).toBe(
      `second in hash order; ${first} (first) is not eligible: its health check demo/web fails; answers for the IP`,
    );
  });

  it("with the failing node's last result (the daemon adds it from gossip), the skip and the node's own line say it", () => {
    const plain = explain([second, third]);
    const e: Explanation = {
      ...plain,
      viewer: second,
      candidates: plain.candidates.map((c) =>
        c.node === first ? { ...c, healthCheck: { since: Date.UTC(2026, 11, 1, 17, 20, 1), result: 'HTTP 503' } } : c,
      ),
    };
    expect(textOf(e, second)).toBe(
      `second in hash order; ${first} (first) is not eligible: its health check demo/web fails (HTTP 503); answers for the IP`,
    );
    expect(textOf(e, first)).toBe(`health check demo/web failing on ${first} since 2026-12-01T17:20:01Z: HTTP 503`);
  });

  it('a failing check is about the node it names, not "this node", whoever explains', () => {
    const e = explain([first, third]);
    const text = textOf(e, second);
    expect(text).toContain(second);
    expect(text).not.toContain('this node');
  });

  it('the first in hash order is described as first, and an eligible runner-up names the owner', () => {
    const e = explain(names);
    expect(textOf(e, first)).toBe('first in hash order: answers for the IP');
    expect(textOf(e, second)).toBe(`eligible (second in hash order), but ${first} ranks ahead of it`);
  });

  it('a third-place owner names both nodes skipped, in hash order', () => {
    const e = explain([third]);
    expect(textOf(e, third)).toBe(
      `third in hash order; ${first} (first) is not eligible: its health check demo/web fails; ${second} (second) is not eligible: its health check demo/web fails; answers for the IP`,
    );
  });

  it('positions past ten are English ordinals: 11th, 12th, 13th, 21st, 22nd, 23rd, 111th', () => {
    const many = Array.from({ length: 120 }, (_, i) => `n${String(i).padStart(3, '0')}`);
    const wide: ElectionConfig = { ...config, nodes: many.map((n) => node(n)) };
    const e = electAll(wide, [{ service: web, endpoints: { servingNodes: new Set(many) } }], new Set(many)).explain()[0]!;
    const at = (position: number) => e.candidates.find((c) => c.hashPosition === position)!;
    const expected: Record<number, string> = {
      11: '11th',
      12: '12th',
      13: '13th',
      21: '21st',
      22: '22nd',
      23: '23rd',
      24: '24th',
      111: '111th',
    };
    for (const [position, text] of Object.entries(expected)) {
      expect(candidateText(e, at(Number(position)))).toBe(`eligible (${text} in hash order), but ${e.winner} ranks ahead of it`);
    }
  });
});
