import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { FAST_CONFIG, LAN_CONFIG, step, type SwimEvent } from '../../../src/gossip/swim';
import { MemoryNetwork } from '../../../src/gossip/swim/memory-network';
import type { GossipMessage, NodeStateName } from '../../../src/gossip/messages';
import { ip, PORT, start } from './harness';

const NAMES = ['n0', 'n1', 'n2', 'n3', 'n4'];

const phase = fc.record({
  duration: fc.integer({ min: 500, max: 20_000 }),
  loss: fc.constantFrom(0, 0.05, 0.2, 0.5, 1),
  /** A group per node; undefined: no partition in this phase. */
  groups: fc.option(fc.array(fc.integer({ min: 0, max: 2 }), { minLength: NAMES.length, maxLength: NAMES.length }), { nil: undefined }),
});

describe('properties', () => {
  test('random loss and partition schedules never leave a wrong view once the network heals', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), fc.array(phase, { minLength: 1, maxLength: 6 }), (seed, phases) => {
        // The driver re-joins every 10 s, as MetalLB does every minute: after a partition longer than
        // GossipToTheDeadTime both sides have forgotten each other and only a join brings them together.
        const net = new MemoryNetwork({ seed, config: FAST_CONFIG, rejoinInterval: 10_000 });
        NAMES.forEach((name, i) => net.addNode(name, i === 0 ? {} : { join: ['n0'] }));
        net.runFor(2_000);
        for (const p of phases) {
          net.setLink({ loss: p.loss });
          if (p.groups) {
            const groups = [0, 1, 2].map((g) => NAMES.filter((_, i) => p.groups![i] === g));
            net.partition(...groups);
          } else {
            net.heal();
          }
          net.runFor(p.duration);
        }
        net.heal();
        net.setLink({ loss: 0 });
        const t = net.runUntil(() => net.converged(), 60_000);
        expect(t).toBeDefined();
      }),
      { numRuns: 25, seed: 20260101 },
    );
  });

  const name = fc.constantFrom('me', 'b', 'c', 'd', '');
  const bytes = fc.uint8Array({ minLength: 0, maxLength: 20 });
  const inc = fc.integer({ min: 0, max: 20 });
  const seq = fc.integer({ min: 0, max: 50 });
  const vsn = fc.oneof(fc.constant(Uint8Array.of(1, 5, 2, 0, 0, 0)), fc.uint8Array({ minLength: 0, maxLength: 7 }));
  const message: fc.Arbitrary<GossipMessage> = fc.oneof(
    fc.record({ type: fc.constant('ping' as const), seqNo: seq, node: name }),
    fc.record({ type: fc.constant('ack' as const), seqNo: seq }),
    fc.record({ type: fc.constant('nack' as const), seqNo: seq }),
    fc.record({ type: fc.constant('suspect' as const), incarnation: inc, node: name, from: name }),
    fc.record({ type: fc.constant('dead' as const), incarnation: inc, node: name, from: name }),
    fc.record({
      type: fc.constant('alive' as const),
      incarnation: inc,
      node: name,
      addr: fc.constantFrom(ip(2), ip(3), ip(1), new Uint8Array(16)),
      port: fc.constantFrom(PORT, 1),
      meta: bytes,
      vsn,
    }),
    fc.record({
      type: fc.constant('indirectPing' as const),
      seqNo: seq,
      target: fc.constantFrom(ip(2), ip(3)),
      port: fc.constantFrom(0, PORT),
      node: name,
      nack: fc.boolean(),
    }),
    fc.record({ type: fc.constant('user' as const), payload: bytes }),
    fc.record({ type: fc.constant('err' as const), error: fc.string() }),
    fc.record({
      type: fc.constant('pushPull' as const),
      join: fc.boolean(),
      userState: bytes,
      nodes: fc.array(
        fc.record({
          name,
          addr: fc.constantFrom(ip(2), ip(3)),
          port: fc.constant(PORT),
          incarnation: inc,
          state: fc.constantFrom<NodeStateName>('alive', 'suspect', 'dead', 'left'),
          vsn,
        }),
        { maxLength: 4 },
      ),
    }),
  );
  const event: fc.Arbitrary<{ gap: number; event: SwimEvent }> = fc.record({
    gap: fc.integer({ min: 0, max: 3_000 }),
    event: fc.oneof(
      {
        weight: 6,
        arbitrary: fc
          .array(message, { minLength: 1, maxLength: 3 })
          .map((messages): SwimEvent => ({ type: 'packet', from: { addr: ip(2), port: PORT }, messages })),
      },
      { weight: 2, arbitrary: fc.constant<SwimEvent>({ type: 'tick' }) },
      {
        weight: 1,
        arbitrary: message.map((m): SwimEvent => ({ type: 'inboundStream', stream: 1, from: { addr: ip(3), port: PORT }, message: m })),
      },
      {
        weight: 1,
        arbitrary: fc.record({ stream: fc.integer({ min: 1, max: 5 }), message }).map((r): SwimEvent => ({ type: 'streamReply', ...r })),
      },
    ),
  });

  test('no input throws, and the invariants hold: we stay alive, incarnations never fall, health stays in range', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 60 }), fc.constantFrom(LAN_CONFIG, FAST_CONFIG), (events, config) => {
        let result = start(config);
        let now = 0;
        let lastIncarnation = 1;
        for (const { gap, event: e } of events) {
          now += gap;
          result = step(result.state, e, now);
          const me = result.state.members.get('me')!;
          expect(me.state).toBe('alive');
          expect(me.incarnation).toBeGreaterThanOrEqual(lastIncarnation);
          lastIncarnation = me.incarnation;
          expect(result.state.health).toBeGreaterThanOrEqual(0);
          expect(result.state.health).toBeLessThan(config.awarenessMaxMultiplier);
          expect(result.nextDeadline).toBeGreaterThanOrEqual(now);
          for (const m of result.state.members.values()) expect(m.vsn.length).toBe(6);
          expect(new Set(result.state.probeOrder).size).toBe(result.state.members.size);
        }
      }),
      { numRuns: 300, seed: 7 },
    );
  });
});
