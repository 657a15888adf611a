/** fast-check arbitraries for memberlist messages, shared by the codec's round-trip tests and the fuzzer. */
import fc from 'fast-check';
import type { GossipMessage, PushNodeState } from '../../../src/gossip/messages';

export const u32 = fc.nat({ max: 0xffffffff });
const u16 = fc.nat({ max: 0xffff });
const name = fc.string({ maxLength: 40 });
export const addr = fc.oneof(fc.uint8Array({ minLength: 4, maxLength: 4 }), fc.uint8Array({ minLength: 16, maxLength: 16 }));
const vsn = fc
  .tuple(
    fc.integer({ min: 1, max: 3 }),
    fc.integer({ min: 3, max: 255 }),
    fc.nat({ max: 255 }),
    fc.nat({ max: 255 }),
    fc.nat({ max: 255 }),
    fc.nat({ max: 255 }),
  )
  .map((v) => Uint8Array.from(v));
const optBytes = fc.option(fc.uint8Array({ maxLength: 600 }), { nil: undefined });
const source = fc.record(
  { sourceAddr: addr, sourcePort: fc.integer({ min: 1, max: 0xffff }), sourceNode: name.filter((s) => s !== '') },
  { requiredKeys: [] },
);
export const nodeState: fc.Arbitrary<PushNodeState> = fc
  .record({ name, addr, port: u16, incarnation: u32, state: fc.constantFrom('alive', 'suspect', 'dead', 'left'), vsn, meta: optBytes })
  .map(({ meta, ...n }) => (meta === undefined ? n : { ...n, meta }));

export const message: fc.Arbitrary<GossipMessage> = fc.oneof(
  fc.tuple(u32, name, source).map(([seqNo, node, s]) => ({ type: 'ping' as const, seqNo, node, ...s })),
  fc
    .tuple(u32, addr, u16, name, fc.boolean(), source)
    .map(([seqNo, target, port, node, nack, s]) => ({ type: 'indirectPing' as const, seqNo, target, port, node, nack, ...s })),
  fc
    .tuple(u32, optBytes)
    .map(([seqNo, payload]) => (payload === undefined ? { type: 'ack' as const, seqNo } : { type: 'ack' as const, seqNo, payload })),
  u32.map((seqNo) => ({ type: 'nack' as const, seqNo })),
  name.map((error) => ({ type: 'err' as const, error })),
  fc
    .tuple(fc.constantFrom('suspect' as const, 'dead' as const), u32, name, name)
    .map(([type, incarnation, node, from]) => ({ type, incarnation, node, from })),
  fc
    .tuple(u32, name, addr, u16, optBytes, vsn)
    .map(([incarnation, node, a, port, meta, v]) =>
      meta === undefined
        ? { type: 'alive' as const, incarnation, node, addr: a, port, vsn: v }
        : { type: 'alive' as const, incarnation, node, addr: a, port, meta, vsn: v },
    ),
  fc
    .tuple(fc.boolean(), fc.array(nodeState, { maxLength: 8 }), fc.uint8Array({ maxLength: 300 }))
    .map(([join, nodes, userState]) => ({ type: 'pushPull' as const, join, nodes, userState })),
  fc.uint8Array({ maxLength: 300 }).map((payload) => ({ type: 'user' as const, payload })),
);
