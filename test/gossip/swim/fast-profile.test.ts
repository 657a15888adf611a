import { describe, expect, test } from 'vitest';
import { detectionTime, FAST_CONFIG } from '../../../src/gossip/swim';
import { MemoryNetwork } from '../../../src/gossip/swim/memory-network';

/**
 * The FAST profile's promise (config.ts): in a quiet 3-node LAN a crash is dead everywhere in about 1 s, and
 * neither 5% loss nor one CPU-saturated node produces a false "dead".
 */
function trio(seed: number, options: { loss?: number; cpuCost?: number } = {}): MemoryNetwork {
  const net = new MemoryNetwork({ seed, config: FAST_CONFIG, link: { loss: 0 } });
  net.addNode('a');
  net.addNode('b', { join: ['a'] });
  net.addNode('c', { join: ['a'], ...(options.cpuCost ? { cpuCost: options.cpuCost } : {}) });
  net.runUntil(() => net.converged(), 10_000);
  if (options.loss) net.setLink({ loss: options.loss });
  return net;
}

describe('FAST profile, 3 nodes', () => {
  test('crash -> dead everywhere in about 1 s (30 runs)', () => {
    const bound = detectionTime(FAST_CONFIG, 3);
    const times: number[] = [];
    for (let seed = 1; seed <= 30; seed++) {
      const net = trio(seed);
      net.runFor(3_000 + seed * 37); // crash at a different phase each run
      const crashedAt = net.now;
      net.crash('c');
      const t = net.runUntil(() => net.allSee({ c: 'dead' }, ['a', 'b']), 10_000);
      expect(t).toBeDefined();
      times.push(t! - crashedAt);
    }
    const mean = times.reduce((a, b) => a + b, 0) / times.length;
    const sorted = [...times].sort((a, b) => a - b);
    console.info(
      `[sim] FAST 3-node crash -> dead: mean ${mean.toFixed(0)} ms, min ${sorted[0]!.toFixed(0)}, ` +
        `median ${sorted[15]!.toFixed(0)}, max ${sorted[29]!.toFixed(0)} (formula: typical ${bound.typical}, worst ${bound.worst})`,
    );
    expect(mean).toBeGreaterThan(600);
    expect(mean).toBeLessThan(1_300);
    expect(Math.max(...times)).toBeLessThanOrEqual(bound.worst);
  });

  test('5% loss on every link for 10 virtual minutes: no false dead', () => {
    const net = trio(11, { loss: 0.05 });
    net.runFor(600_000);
    const suspicions = net.count('suspect');
    console.info(
      `[sim] FAST 3-node, 5% loss, 10 min: ${suspicions} suspicions, ${net.count('refute')} refutations, ` +
        `${net.count('dead')} dead, ${net.count('probeTcpOnly')} TCP-only probes, ${net.packetsLost}/${net.packetsSent} packets lost`,
    );
    expect(net.count('dead')).toBe(0);
    expect(net.converged()).toBe(true);
  });

  test('one CPU-saturated node (each event costs 28 ms: ~70% busy, events wait up to ~80 ms), 5 min: no false dead', () => {
    const net = trio(12, { cpuCost: 28 });
    net.runFor(300_000);
    const load = net.cpuLoad('c');
    console.info(
      `[sim] FAST 3-node, c saturated (${(load.utilization * 100).toFixed(0)}% busy, events wait up to ` +
        `${load.maxQueueDelay.toFixed(0)} ms), 5 min: ${net.count('suspect')} suspicions, ${net.count('dead')} dead`,
    );
    expect(load.utilization).toBeGreaterThan(0.65);
    expect(net.count('dead')).toBe(0);
    expect(net.converged()).toBe(true);
  });

  test('an overloaded node (94% busy, events wait > 1 s) flaps, but never gets the healthy ones declared dead', () => {
    const net = trio(12, { cpuCost: 30 });
    const accused = new Set<string>();
    net.onLog = (_t, _node, line) => {
      if (line.reason === 'suspicionTimeout') accused.add(line.message.split(' ')[1]!);
    };
    net.runFor(300_000);
    console.info(
      `[sim] FAST 3-node, c overloaded (${(net.cpuLoad('c').utilization * 100).toFixed(0)}% busy): ` +
        `${net.count('suspect')} suspicions, ${net.count('dead')} dead, c's health ${net.state('c')!.health}`,
    );
    // Lifeguard: the slow node's own probes fail without nacks, its health rises, its accusations stay
    // unconfirmed and are refuted; only the node that cannot answer within a second is declared dead.
    expect([...accused]).toEqual(['c']);
    expect(net.state('c')!.health).toBeGreaterThan(0);
  });

  test('a busy node (20 ms per event, ~55% busy) and 5% loss together for 5 virtual minutes: no false dead', () => {
    // Loss adds failure-detector traffic (indirect probes, suspicions, refutations) to the busy node: above
    // ~60% busy its queue delays pass the suspicion timeouts and it starts to flap (measured: 24 ms per event,
    // 70% busy, 6 false deads in 5 minutes).
    const net = trio(13, { cpuCost: 20, loss: 0.05 });
    net.runFor(300_000);
    const load = net.cpuLoad('c');
    console.info(
      `[sim] FAST 3-node, c busy (${(load.utilization * 100).toFixed(0)}%, events wait up to ` +
        `${load.maxQueueDelay.toFixed(0)} ms) + 5% loss, 5 min: ${net.count('suspect')} suspicions, ${net.count('dead')} dead`,
    );
    expect(net.count('dead')).toBe(0);
  });

  test('a crash is still detected in about a second with 5% loss', () => {
    const net = trio(14, { loss: 0.05 });
    net.runFor(5_000);
    const crashedAt = net.now;
    net.crash('b');
    const t = net.runUntil(() => net.allSee({ b: 'dead' }, ['a', 'c']), 10_000);
    console.info(`[sim] FAST 3-node crash with 5% loss -> dead everywhere after ${(t! - crashedAt).toFixed(0)} ms`);
    expect(t! - crashedAt).toBeLessThanOrEqual(detectionTime(FAST_CONFIG, 3).worst);
  });
});
