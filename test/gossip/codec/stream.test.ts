/**
 * Streams: the writer's wrapping and the incremental reader (fed any split of the bytes), its limits and drops.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  encodeStream,
  encodeStreamBody,
  encodeStreamMessage,
  Keyring,
  PUSH_PULL_MAX_NODES,
  STREAM_MAX_ENCRYPTED_BYTES,
  StreamBudget,
  StreamReader,
  type StreamDecodeOptions,
  streamPreamble,
  USER_STATE_MAX_BYTES,
} from '../../../src/gossip/codec';
import { MsgpackWriter } from '../../../src/gossip/codec/msgpack-writer';
import { DEFAULT_VSN, type GossipMessage, type PushNodeState } from '../../../src/gossip/messages';
import { message } from './arbitraries';

const ring = Keyring.create(new Uint8Array(16).fill(3));
const nonce = () => new Uint8Array(12).fill(2);
const node = (name: string): PushNodeState => ({
  name,
  addr: Uint8Array.of(10, 0, 0, 9),
  port: 7946,
  incarnation: 2,
  state: 'alive',
  vsn: DEFAULT_VSN,
});
const pushPull: GossipMessage = { type: 'pushPull', join: true, nodes: [node('a'), node('b')], userState: Uint8Array.of(1, 2, 3) };

function readAll(bytes: Uint8Array, opts: StreamDecodeOptions = {}, chunk = bytes.length) {
  const r = new StreamReader(opts);
  const messages: GossipMessage[] = [];
  const drops: string[] = [];
  for (let i = 0; i < bytes.length; i += Math.max(1, chunk)) {
    const o = r.push(bytes.subarray(i, i + chunk));
    messages.push(...o.messages);
    drops.push(...o.drops.map((d) => d.reason));
  }
  drops.push(...r.end().drops.map((d) => d.reason));
  return { messages, drops, reader: r };
}

describe('stream writer and reader', () => {
  it('round-trip every stream message in every wrapping, split anywhere', () => {
    const streamMessage = message.filter((m) => ['pushPull', 'ping', 'ack', 'user', 'err'].includes(m.type));
    const opts = fc.record({ compress: fc.boolean(), encrypt: fc.boolean(), v0: fc.boolean(), label: fc.constantFrom(undefined, 'lab') });
    fc.assert(
      fc.property(streamMessage, opts, fc.integer({ min: 1, max: 64 }), (m, o, chunk) => {
        const enc = {
          compress: o.compress,
          keyring: o.encrypt ? ring : undefined,
          encryptionVersion: o.v0 ? (0 as const) : (1 as const),
          nonce,
          label: o.label,
        };
        const r = readAll(encodeStream(m, enc), { keyring: enc.keyring, label: o.label }, chunk);
        expect(r.drops).toEqual([]);
        expect(r.messages).toEqual([m]);
      }),
      { numRuns: 500 },
    );
  });

  it('compression is always applied on streams (no "only if smaller")', () => {
    const ping: GossipMessage = { type: 'ping', seqNo: 1, node: 'x' };
    const plain = encodeStreamMessage(ping);
    const compressed = encodeStream(ping, { compress: true });
    expect(compressed[0]).toBe(9);
    expect(compressed.length).toBeGreaterThan(plain.length);
  });

  it('encrypted framing: [0a][u32 length][sealed], AAD = header + label', () => {
    const out = encodeStream(pushPull, { keyring: ring, nonce, label: 'lab' });
    expect([...out.subarray(0, 5)]).toEqual([0xf4, 3, 0x6c, 0x61, 0x62]);
    const len = new DataView(out.buffer, out.byteOffset + 5).getUint32(1);
    expect(out[5]).toBe(10);
    expect(out.length).toBe(5 + 5 + len);
    expect(streamPreamble({ label: 'lab' })).toEqual(out.subarray(0, 5));
    // Without the label the AAD differs even when the header is skipped over.
    expect(readAll(out.subarray(5), { keyring: ring }).drops).toEqual(['decryptFailed']);
  });

  it('reads several messages in a row on one stream', () => {
    const a = encodeStreamBody({ type: 'ping', seqNo: 1, node: 'x' });
    const b = encodeStreamBody({ type: 'ack', seqNo: 1 });
    const both = new Uint8Array([...a, ...b]);
    expect(readAll(both, {}, 3).messages.map((m) => m.type)).toEqual(['ping', 'ack']);
  });
});

describe('stream reader refusals', () => {
  it('a push/pull header over the node limit is refused before any node is buffered', () => {
    const w = new MsgpackWriter();
    w.byte(6).struct({ Join: { bool: false }, Nodes: { int: PUSH_PULL_MAX_NODES + 1 }, UserStateLen: { int: 0 } });
    const r = new StreamReader();
    const o = r.push(w.bytes());
    expect(o.drops.map((d) => d.reason)).toEqual(['pushPullTooLarge']);
    expect(r.failed).toBe(true);
    expect(r.push(new Uint8Array(1000)).drops).toEqual([]);
  });

  it('user state over its limit is refused from the header', () => {
    const w = new MsgpackWriter();
    w.byte(6).struct({ Join: { bool: false }, Nodes: { int: 0 }, UserStateLen: { int: USER_STATE_MAX_BYTES + 1 } });
    expect(readAll(w.bytes()).drops).toEqual(['pushPullTooLarge']);
  });

  it('an encrypted length over 20 MB is refused after 5 bytes', () => {
    const h = Uint8Array.of(10, 0, 0, 0, 0);
    new DataView(h.buffer).setUint32(1, STREAM_MAX_ENCRYPTED_BYTES + 1);
    const r = new StreamReader({ keyring: ring });
    expect(r.push(h).drops.map((d) => d.reason)).toEqual(['streamTooLarge']);
  });

  it('a plaintext value claiming more than the message limit is refused, not awaited', () => {
    // 0d err | 81 a5 "Error" db 7fffffff ...
    const lying = Uint8Array.of(13, 0x81, 0xa5, 0x45, 0x72, 0x72, 0x6f, 0x72, 0xdb, 0x7f, 0xff, 0xff, 0xff, 0x41);
    expect(readAll(lying).drops).toEqual(['streamTooLarge']);
  });

  it('encryption mismatches', () => {
    expect(readAll(encodeStream(pushPull, { keyring: ring, nonce })).drops).toEqual(['unexpectedEncryption']);
    expect(readAll(encodeStream(pushPull), { keyring: ring }).drops).toEqual(['notEncrypted']);
    expect(readAll(encodeStream(pushPull), { keyring: ring, verifyIncoming: false }).messages).toEqual([pushPull]);
  });

  it('labels: required when configured, refused when not, compared exactly', () => {
    expect(readAll(encodeStream(pushPull, { label: 'a' })).drops).toEqual(['badLabel']);
    expect(readAll(encodeStream(pushPull), { label: 'a' }).drops).toEqual(['badLabel']);
    expect(readAll(encodeStream(pushPull, { label: 'a' }), { label: 'b' }).drops).toEqual(['badLabel']);
    expect(readAll(encodeStream(pushPull, { label: 'a' }), { label: 'a' }, 1).messages).toEqual([pushPull]);
  });

  it('a stream cut inside a message is truncatedStream; an empty stream is nothing', () => {
    const s = encodeStream(pushPull);
    for (const cut of [1, 5, s.length - 1]) expect(readAll(s.subarray(0, cut)).drops, String(cut)).toEqual(['truncatedStream']);
    expect(readAll(new Uint8Array(0)).drops).toEqual([]);
    expect(new StreamReader().idle).toBe(true);
  });

  it('types that do not travel on streams', () => {
    expect(readAll(Uint8Array.of(4, 0x80)).drops).toEqual(['unknownType']);
    expect(readAll(Uint8Array.of(7, 1, 0, 1, 0)).drops).toEqual(['unknownType']);
  });

  it('push/pull nodes Go would skip are dropped one by one, the rest arrive', () => {
    const bad = { ...node('c'), vsn: Uint8Array.of(4, 2, 2, 0, 0, 0) };
    const r = readAll(encodeStream({ ...pushPull, nodes: [node('a'), bad, node('b')] } as GossipMessage), {}, 7);
    expect(r.drops).toEqual(['badProtocolRange']);
    expect(r.messages).toEqual([pushPull]);
  });
});

describe('the inbound stream budget', () => {
  const encHeader = (len: number) => Uint8Array.of(0x0a, (len >>> 24) & 0xff, (len >>> 16) & 0xff, (len >>> 8) & 0xff, len & 0xff);

  it('refuses an encrypted message from its header when it does not fit beside the others', () => {
    const budget = new StreamBudget(1_000_000);
    const first = new StreamReader({ keyring: ring, budget });
    expect(first.push(encHeader(800_000)).drops).toEqual([]);
    expect(budget.used).toBeGreaterThanOrEqual(800_000);
    // Five bytes are all the second peer sends: refused before any body is buffered.
    const second = new StreamReader({ keyring: ring, budget });
    expect(second.push(encHeader(800_000)).drops.map((d) => d.reason)).toEqual(['streamBudgetExceeded']);
    expect(second.reservedBytes).toBe(0);
    // The first stream closing gives its share back, and the budget is whole again.
    first.dispose();
    expect(budget.used).toBe(0);
  });

  it('reads a message that fits, and gives its bytes back once it is decoded', () => {
    const budget = new StreamBudget(1_000_000);
    const r = readAll(encodeStream(pushPull, { keyring: ring, nonce }), { keyring: ring, budget }, 7);
    expect(r.messages).toEqual([pushPull]);
    r.reader.dispose();
    expect(budget.used).toBe(0);
  });

  it('bounds plaintext growth by the same budget', () => {
    const budget = new StreamBudget(64 * 1024);
    const big = encodeStream({ type: 'user', payload: new Uint8Array(200_000) });
    const r = readAll(big, { budget }, 16 * 1024);
    expect(r.drops).toEqual(['streamBudgetExceeded']);
    expect(budget.used).toBe(0);
  });
});
