import { describe, expect, it } from 'vitest';
import { memberFacts } from '../../src/gossip/member-facts';
import { encodeNodeMeta } from '../../src/gossip/node-meta';

const mlbMeta = (labels: Record<string, string>, draining = false) =>
  encodeNodeMeta({ labels, conditions: [], draining, warmingUp: false });

describe('memberFacts', () => {
  it('uses mlb-only inputs while every live member is mlb', () => {
    const view = memberFacts([
      { name: 'node-b', meta: mlbMeta({ zone: 'b' }, true) },
      { name: 'node-a', meta: mlbMeta({ zone: 'a' }) },
    ]);
    expect(view.mlbOnlyInputsAllowed).toBe(true);
    expect(view.live).toEqual(['node-a', 'node-b']);
    expect(view.facts.get('node-b')).toMatchObject({ labels: { zone: 'b' }, draining: true });
  });

  it("falls back to MetalLB's election while a plain MetalLB speaker is live, and says who", () => {
    const view = memberFacts([{ name: 'node-a', meta: mlbMeta({}) }, { name: 'speaker-x' }, { name: 'speaker-y', meta: new Uint8Array() }]);
    expect(view.mlbOnlyInputsAllowed).toBe(false);
    expect(view.plainSpeakers).toEqual(['speaker-x', 'speaker-y']);
    expect(view.reason).toContain('speaker-x, speaker-y');
  });
});
