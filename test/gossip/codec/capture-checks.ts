/**
 * Checks shared by the committed captures (fixtures.test.ts) and the live capture run against Go memberlist
 * (test/interop/memberlist-capture.test.ts). A capture is what test/interop/go/memberlist-capture writes: every
 * UDP packet and every stream side that real memberlist 0.2.2 nodes put on the wire, with a description of the
 * nodes (names, addresses, ports, meta, user state) and the key.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { GossipMessage, PushNodeState } from '../../../src/gossip/messages';
import {
  decodePacket,
  decryptPayload,
  encodePacket,
  encodeStream,
  type EncryptionVersion,
  Keyring,
  metallbKeyFromSecret,
  StreamReader,
} from '../../../src/gossip/codec';

export interface CaptureNode {
  readonly name: string;
  readonly addrHex: string;
  readonly port: number;
  readonly metaHex: string;
  readonly userStateHex: string;
}

export interface Capture {
  readonly scenario: string;
  readonly source: string;
  readonly compression: boolean;
  readonly protocolVersion: number;
  readonly secretHex?: string;
  readonly keyHex?: string;
  readonly nodes: readonly CaptureNode[];
  readonly userMessagesHex: readonly string[];
  readonly packets: readonly { seq: number; from: string; to: string; hex: string }[];
  readonly streams: readonly { seq: number; node: string; side: 'dial' | 'accept'; peer: string; hex: string }[] | null;
}

export const SCENARIOS = ['plain', 'compressed', 'encrypted', 'encrypted-v0', 'delegate'] as const;

export function loadCaptures(dir: string): Capture[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Capture);
}

const hex = (b: Uint8Array | undefined) => (b === undefined ? undefined : Buffer.from(b).toString('hex'));
const bytes = (h: string) => new Uint8Array(Buffer.from(h, 'hex'));

export function keyringOf(c: Capture): Keyring | undefined {
  return c.keyHex ? Keyring.create(bytes(c.keyHex)) : undefined;
}

export interface DecodedCapture {
  /** Every message of every packet, with the packet's sender. */
  readonly packetMessages: { from: string; message: GossipMessage }[];
  readonly streamMessages: { node: string; side: string; message: GossipMessage }[];
}

/** Decodes everything; every packet and stream must decode without a single drop. */
export function decodeCapture(c: Capture, chunk = 13): DecodedCapture {
  const keyring = keyringOf(c);
  const packetMessages: DecodedCapture['packetMessages'] = [];
  for (const p of c.packets) {
    const r = decodePacket(bytes(p.hex), { keyring });
    expect(r.drops, `${c.scenario} packet ${p.seq}`).toEqual([]);
    expect(r.messages.length).toBeGreaterThan(0);
    for (const message of r.messages) packetMessages.push({ from: p.from, message });
  }
  const streamMessages: DecodedCapture['streamMessages'] = [];
  for (const s of c.streams ?? []) {
    const reader = new StreamReader({ keyring });
    const b = bytes(s.hex);
    const messages: GossipMessage[] = [];
    // Odd chunk sizes: the reader must not care where TCP splits the bytes.
    for (let i = 0; i < b.length; i += chunk) {
      const o = reader.push(b.subarray(i, i + chunk));
      expect(o.drops, `${c.scenario} stream ${s.seq}`).toEqual([]);
      messages.push(...o.messages);
    }
    expect(reader.end().drops).toEqual([]);
    expect(messages, `${c.scenario} stream ${s.seq} carries one message`).toHaveLength(1);
    streamMessages.push({ node: s.node, side: s.side, message: messages[0] as GossipMessage });
  }
  return { packetMessages, streamMessages };
}

/** What every decoded message says must agree with the nodes Go reported. */
export function checkContent(c: Capture, d: DecodedCapture): Set<string> {
  const byName = new Map(c.nodes.map((n) => [n.name, n]));
  const names = [...byName.keys()];
  const ports = c.nodes.map((n) => n.port);
  const delegate = c.scenario === 'delegate';
  const userMessages = new Set(c.userMessagesHex);
  const vsn = hex(Uint8Array.of(1, 5, c.protocolVersion, 0, 0, 0));
  const seen = new Set<string>();
  const indirectTargets = new Set<string>();

  const checkNode = (name: string, addr: Uint8Array, port: number, meta: Uint8Array | undefined, v: Uint8Array, incarnation: number) => {
    const n = byName.get(name);
    expect(n, `unknown node ${name}`).toBeDefined();
    expect(hex(addr)).toBe(n?.addrHex);
    // Protocol 1 has "no port": a 0.2.2 node speaking it replaces every port it learns with its own bind port
    // (net.go handleAlive, readRemoteState) and gossips that on, so any node's port can appear.
    if (c.protocolVersion >= 2) expect(port).toBe(n?.port);
    else expect(ports).toContain(port);
    expect(hex(v)).toBe(vsn);
    expect(incarnation).toBeGreaterThanOrEqual(1);
    expect(incarnation).toBeLessThan(50);
    // Without a delegate Go sends nil Meta (0xc0); with one, the delegate's bytes (not UTF-8).
    if (delegate) expect(hex(meta)).toBe(n?.metaHex);
    else expect(meta).toBeUndefined();
  };

  for (const { from, message: m } of d.packetMessages) {
    seen.add(m.type);
    switch (m.type) {
      case 'alive':
        checkNode(m.node, m.addr, m.port, m.meta, m.vsn, m.incarnation);
        break;
      case 'suspect':
      case 'dead':
        expect(names).toContain(m.node);
        expect(names).toContain(m.from);
        expect(m.incarnation).toBeGreaterThanOrEqual(1);
        if (m.type === 'dead' && m.node === m.from) seen.add('leave');
        break;
      case 'ping':
        expect(names).toContain(m.node);
        if (m.sourceNode !== undefined) expect(m.sourceNode).toBe(from);
        if (m.sourceAddr !== undefined) expect(hex(m.sourceAddr)).toBe(byName.get(from)?.addrHex);
        if (m.sourcePort !== undefined) expect(m.sourcePort).toBe(byName.get(from)?.port);
        break;
      case 'indirectPing':
        // The victim stops answering, so it is probed indirectly (checked below); on a loaded machine a live node
        // that answered late is probed indirectly too, so any known node may be a target.
        indirectTargets.add(m.node);
        expect(names).toContain(m.node);
        expect(hex(m.target)).toBe(byName.get(m.node)?.addrHex);
        expect(ports).toContain(m.port);
        if (c.protocolVersion >= 2) expect(m.port).toBe(byName.get(m.node)?.port);
        // Every node has pmax 5 >= 4, so the relay is asked for a nack.
        expect(m.nack).toBe(true);
        break;
      case 'user':
        expect(userMessages.has(hex(m.payload) as string)).toBe(true);
        break;
      case 'ack':
      case 'nack':
        expect(Number.isInteger(m.seqNo)).toBe(true);
        break;
      default:
        throw new Error(`unexpected ${m.type} in a packet`);
    }
  }
  for (const { node, side, message: m } of d.streamMessages) {
    seen.add(`stream:${m.type}`);
    if (m.type === 'pushPull') {
      expect(m.nodes.length).toBeGreaterThan(0);
      m.nodes.forEach((n: PushNodeState) => {
        checkNode(n.name, n.addr, n.port, n.meta, n.vsn, n.incarnation);
        expect(['alive', 'suspect', 'dead', 'left']).toContain(n.state);
      });
      // The sender is in its own state: alive, or left when it is leaving.
      expect(['alive', 'left']).toContain(m.nodes.find((n) => n.name === node)?.state);
      if (delegate) expect(hex(m.userState)).toBe(byName.get(node)?.userStateHex);
      else expect(m.userState).toHaveLength(0);
      if (side === 'dial' && m.join) seen.add('join');
    } else if (m.type === 'user') {
      expect(userMessages.has(hex(m.payload) as string)).toBe(true);
    } else {
      expect(['ping', 'ack', 'err']).toContain(m.type);
    }
  }
  // With protocol 1 everyone is probed indirectly (see checkNode); from 2 on, the victim must be among them.
  if (c.protocolVersion >= 2 && indirectTargets.size > 0) expect([...indirectTargets]).toContain('victim');
  return seen;
}

/**
 * mlb's encoder against Go's bytes: re-encoding what was decoded, with the nonce Go picked, must give the very
 * same packet and stream bytes (old-spec msgpack, sorted keys, minimal uints, Go's LZW, "compress only if
 * smaller", CRC, AES-GCM with version 0 padding or version 1).
 */
export function checkReencoding(c: Capture): { packets: number; streams: number } {
  const keyring = keyringOf(c);
  let packets = 0;
  let streams = 0;
  for (const p of c.packets) {
    const raw = bytes(p.hex);
    const { messages } = decodePacket(raw, { keyring });
    const version = raw[0] as EncryptionVersion;
    const nonce = raw.slice(1, 13);
    const plain = keyring ? decryptPayload(keyring, raw, new Uint8Array(0)) : raw;
    const again = encodePacket(messages, {
      compress: c.compression,
      crc: plain[0] === 12,
      keyring,
      encryptionVersion: version,
      nonce: () => nonce,
    });
    expect(hex(again), `${c.scenario} packet ${p.seq}`).toBe(p.hex);
    packets++;
  }
  for (const s of c.streams ?? []) {
    const raw = bytes(s.hex);
    const reader = new StreamReader({ keyring });
    const [message] = reader.push(raw).messages;
    const again = encodeStream(message as GossipMessage, {
      compress: c.compression,
      keyring,
      encryptionVersion: raw[5] as EncryptionVersion,
      nonce: () => raw.slice(6, 18),
    });
    expect(hex(again), `${c.scenario} stream ${s.seq}`).toBe(s.hex);
    streams++;
  }
  return { packets, streams };
}

/** The key in the capture was derived by Go exactly as MetalLB does; mlb must derive the same from the secret. */
export function checkKey(c: Capture): void {
  if (!c.secretHex) return;
  expect(hex(metallbKeyFromSecret(bytes(c.secretHex)))).toBe(c.keyHex);
}
