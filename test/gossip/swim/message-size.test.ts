import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { encodedSize } from '../../../src/gossip/swim';
import { encodeMessage } from '../../../src/gossip/codec/message-codec';
import type { GossipMessage } from '../../../src/gossip/messages';

/**
 * The broadcast queue packs piggybacked messages by encodedSize(); it must match the codec's packet encoding
 * byte for byte, or packets overflow (the codec then drops the tail) or waste room.
 */
const name = fc.string({ maxLength: 40 });
const bytes = (max: number) => fc.uint8Array({ maxLength: max });
const u32 = fc.integer({ min: 0, max: 0xffffffff });
const port = fc.integer({ min: 1, max: 65535 });
const source = {
  sourceAddr: fc.uint8Array({ minLength: 4, maxLength: 4 }),
  sourcePort: port,
  sourceNode: fc.string({ minLength: 1, maxLength: 20 }),
};

const message: fc.Arbitrary<GossipMessage> = fc.oneof(
  fc.record({ type: fc.constant('ping' as const), seqNo: u32, node: name }),
  fc.record({ type: fc.constant('ping' as const), seqNo: u32, node: name, ...source }),
  fc.record({
    type: fc.constant('indirectPing' as const),
    seqNo: u32,
    target: bytes(16),
    port,
    node: name,
    nack: fc.boolean(),
    ...source,
  }),
  fc.record({ type: fc.constant('ack' as const), seqNo: u32 }),
  fc.record({ type: fc.constant('ack' as const), seqNo: u32, payload: bytes(300) }),
  fc.record({ type: fc.constant('nack' as const), seqNo: u32 }),
  fc.record({ type: fc.constant('suspect' as const), incarnation: u32, node: name, from: name }),
  fc.record({ type: fc.constant('dead' as const), incarnation: u32, node: name, from: name }),
  fc.record({
    type: fc.constant('alive' as const),
    incarnation: u32,
    node: name,
    addr: fc.uint8Array({ minLength: 4, maxLength: 16 }),
    port,
    vsn: fc.uint8Array({ minLength: 6, maxLength: 6 }),
  }),
  fc.record({
    type: fc.constant('alive' as const),
    incarnation: u32,
    node: name,
    addr: fc.uint8Array({ minLength: 4, maxLength: 16 }),
    port,
    meta: bytes(512),
    vsn: fc.uint8Array({ minLength: 6, maxLength: 6 }),
  }),
  fc.record({ type: fc.constant('user' as const), payload: bytes(1000) }),
);

describe('encodedSize', () => {
  test("equals the codec's encoding length for every packet message", () => {
    fc.assert(
      fc.property(message, (m) => {
        expect(encodedSize(m)).toBe(encodeMessage(m).length);
      }),
      { numRuns: 2000, seed: 3 },
    );
  });
});
