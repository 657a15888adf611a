import { describe, expect, it } from 'vitest';
import { BgpMessageReader, decodeMessage } from '../../../../src/announce/bgp/codec';
import type { BgpMessage } from '../../../../src/announce/bgp/bgp-messages';
import {
  END_OF_RIB_IPV6,
  hex,
  KEEPALIVE,
  MARKER,
  NOTIFICATION_SHUTDOWN,
  OPEN_ALL_CAPABILITIES,
  ROUTE_REFRESH_IPV6,
  UPDATE_ALL_ATTRIBUTES,
  UPDATE_IPV6_LINK_LOCAL,
} from './bgp-vectors';

const FOUR = { fourOctetAsn: true };
const VECTORS = [
  OPEN_ALL_CAPABILITIES,
  KEEPALIVE,
  UPDATE_ALL_ATTRIBUTES,
  UPDATE_IPV6_LINK_LOCAL,
  END_OF_RIB_IPV6,
  ROUTE_REFRESH_IPV6,
  NOTIFICATION_SHUTDOWN,
];
const STREAM = Uint8Array.from(VECTORS.flatMap((v) => [...v]));

function expected(): BgpMessage[] {
  return VECTORS.map((v) => {
    const r = decodeMessage(v, FOUR);
    if (!r.ok) throw new Error(r.error.message);
    return r.message;
  });
}

function readInChunks(bytes: Uint8Array, size: number): { messages: BgpMessage[]; errors: number } {
  const reader = new BgpMessageReader(FOUR);
  const messages: BgpMessage[] = [];
  let errors = 0;
  for (let i = 0; i < bytes.length; i += size) {
    const r = reader.push(bytes.subarray(i, i + size));
    messages.push(...r.messages);
    if (r.error) errors++;
  }
  return { messages, errors };
}

describe('BgpMessageReader (TCP stream framing)', () => {
  it('yields the same messages for every chunk size from 1 octet to the whole stream', () => {
    const want = expected();
    for (let size = 1; size <= STREAM.length; size += size < 40 ? 1 : 37) {
      expect(readInChunks(STREAM, size)).toEqual({ messages: want, errors: 0 });
    }
  });

  it('holds a partial message until the rest arrives', () => {
    const reader = new BgpMessageReader(FOUR);
    expect(reader.push(UPDATE_ALL_ATTRIBUTES.subarray(0, 50))).toEqual({ messages: [] });
    expect(reader.bufferedBytes).toBe(50);
    expect(reader.push(UPDATE_ALL_ATTRIBUTES.subarray(50)).messages).toHaveLength(1);
    expect(reader.bufferedBytes).toBe(0);
  });

  it('reports a bad header as soon as its 19 octets are in, without waiting for the announced body', () => {
    const reader = new BgpMessageReader(FOUR);
    const r = reader.push(hex(`${MARKER} 0400 09`)); // type 9, announces 1024 octets
    expect([r.error?.notificationCode, r.error?.subcode]).toEqual([1, 3]);
  });

  it('returns the messages before an error, then stops for good with the same error', () => {
    const reader = new BgpMessageReader(FOUR);
    const badMarker = hex(`00${MARKER.slice(2)} 0013 04`);
    const r = reader.push(Uint8Array.from([...KEEPALIVE, ...badMarker, ...KEEPALIVE]));
    expect(r.messages).toEqual([{ type: 'keepalive' }]);
    expect([r.error?.notificationCode, r.error?.subcode]).toEqual([1, 1]);
    const later = reader.push(KEEPALIVE);
    expect(later).toEqual({ messages: [], error: r.error });
    expect(reader.error).toBe(r.error);
  });

  it('passes an RFC 7606 treat-as-withdraw UPDATE through with its reason, and keeps reading', () => {
    // UPDATE 192.168.20.100/32 whose ORIGIN value is 9.
    const taw = hex(`${MARKER} 0037 02 0000 001b 40010109 4002060201 0000fc00 400304c0a80a14 c00804fc000064 20c0a81464`);
    const r = new BgpMessageReader(FOUR).push(Uint8Array.from([...taw, ...KEEPALIVE]));
    expect(r.error).toBeUndefined();
    const [update, keepalive] = r.messages;
    expect(update?.type === 'update' && update.treatAsWithdraw?.reason).toMatch(/ORIGIN value 9/);
    expect(keepalive).toEqual({ type: 'keepalive' });
  });

  it('keeps decoded data intact after its buffer is reused (messages never alias the stream)', () => {
    const reader = new BgpMessageReader(FOUR);
    const first = reader.push(NOTIFICATION_SHUTDOWN).messages[0];
    reader.push(Uint8Array.from([...KEEPALIVE, ...KEEPALIVE.subarray(0, 10)]));
    reader.push(new Uint8Array(9).fill(0xff));
    expect(first).toEqual({ type: 'notification', code: 6, subcode: 2, data: hex('0b 6d61696e74656e616e6365') });
  });
});
