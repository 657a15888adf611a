import { describe, expect, test } from 'vitest';
import { confirmedSuspects, FAST_CONFIG, FAST_FAILOVER_CONFIG, type SwimConfig } from '../../../src/gossip/swim';
import { MemoryNetwork } from '../../../src/gossip/swim/memory-network';

/**
 * Who the election may stop counting on before a death (confirmed-suspects.ts): a member suspected by the prober
 * and confirmed by the other survivor, silent since, and only with failoverAtConfirmation.
 */
function trio(seed: number, config: SwimConfig): MemoryNetwork {
  const net = new MemoryNetwork({ seed, config, link: { loss: 0 } });
  net.addNode('a');
  net.addNode('b', { join: ['a'] });
  net.addNode('c', { join: ['a'] });
  net.runUntil(() => net.converged(), 10_000);
  net.runFor(1_000 + seed * 37);
  return net;
}

describe('confirmed suspects', () => {
  test('a crashed node is given up on by both survivors before it is declared dead', () => {
    const net = trio(3, FAST_FAILOVER_CONFIG);
    net.crash('c');
    const confirmed = net.runUntil(() => ['a', 'b'].every((n) => confirmedSuspects(net.state(n)!).has('c')), 5_000);
    expect(confirmed).toBeDefined();
    expect(net.allSee({ c: 'suspect' }, ['a', 'b'])).toBe(true); // not dead yet: the suspicion minimum still runs
    const dead = net.runUntil(() => net.allSee({ c: 'dead' }, ['a', 'b']), 5_000);
    expect(dead).toBeDefined();
    expect(confirmedSuspects(net.state('a')!).size).toBe(0); // the dead are gone from live members, not suspects
  });

  test('with fast (failoverAtConfirmation off) nobody is given up on before the death', () => {
    const net = trio(3, FAST_CONFIG);
    net.crash('c');
    let early = 0;
    net.runUntil(() => {
      if (confirmedSuspects(net.state('a')!).size > 0 || confirmedSuspects(net.state('b')!).size > 0) early++;
      return net.allSee({ c: 'dead' }, ['a', 'b']);
    }, 5_000);
    expect(net.allSee({ c: 'dead' }, ['a', 'b'])).toBe(true);
    expect(early).toBe(0);
  });

  test('a member heard from after it was suspected is not given up on, confirmed or not', () => {
    const net = trio(4, FAST_FAILOVER_CONFIG);
    net.crash('c');
    net.runUntil(() => ['a', 'b'].every((n) => confirmedSuspects(net.state(n)!).has('c')), 5_000);
    const state = net.state('a')!;
    const heardNow = { ...state, lastHeard: new Map([...state.lastHeard, ['c', state.suspicions.get('c')!.start + 1]]) };
    expect(confirmedSuspects(heardNow).has('c')).toBe(false);
  });
});
