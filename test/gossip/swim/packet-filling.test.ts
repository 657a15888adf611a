/**
 * The SWIM reducer packs its own packets (draft.ts takePending): a gossip round takes queued broadcasts until the
 * budget is spent. What reaches the wire is that packet after the real pipeline (compound, encryption, label), so
 * the budget must leave room for the pipeline's own bytes: a packet filled to the budget stays within
 * UDPBufferSize + 2, as in Go (memberlist net.go sendMsg leaves out the first message's own u16 length), and is
 * well filled.
 */
import { describe, expect, it } from 'vitest';
import { encodePacket, Keyring, type PacketEncodeOptions, packetOverhead } from '../../../src/gossip/codec';
import { LAN_CONFIG } from '../../../src/gossip/swim';
import { alive, Driver, packets } from './harness';

const ring = Keyring.create(new Uint8Array(32).fill(7));
const nonce = () => new Uint8Array(12).fill(1);
/** memberlist net.go sendMsg: the first message's u16 compound length is not in its sum. */
const GO_SLACK = 2;
/** A packet the budget filled is nearly full: less than one broadcast's worth (about 100 bytes) is left. */
const WELL_FILLED = 1300;

const OPTIONS: readonly [string, PacketEncodeOptions][] = [
  ['plain', {}],
  ['encrypted', { keyring: ring, nonce }],
  ['encrypted v0 with a label', { keyring: ring, nonce, encryptionVersion: 0, label: 'lbl' }],
];

describe('a gossip packet filled with queued broadcasts', () => {
  it.each(OPTIONS)('%s: stays within UDPBufferSize + 2 on the wire and is well filled', (_, opts) => {
    const node = new Driver({ ...LAN_CONFIG, packetOverhead: packetOverhead(opts) });
    node.learn('b', 'c');
    // Members with metadata of varied size: their alive messages queue as broadcasts, more than one packet holds.
    for (let i = 0; i < 60; i++) node.packet(2, alive(`n${i}`, 100 + i, 1, new Uint8Array(i * 3)));
    for (let i = 0; i < 20; i++) node.send({ type: 'broadcast', payload: new Uint8Array(10 + i) });
    // Gossip rounds carry broadcasts only; the probe's ping carries them beside itself (memberlist sendMsg).
    const sent = packets(node.advance(LAN_CONFIG.probeInterval));
    const gossip = sent.filter((p) => p.reason === 'gossip');
    expect(gossip.length).toBeGreaterThan(0);
    for (const p of sent) expect(encodePacket(p.messages, opts).length).toBeLessThanOrEqual(LAN_CONFIG.udpBufferSize + GO_SLACK);
    expect(encodePacket((gossip[0] as (typeof gossip)[number]).messages, opts).length).toBeGreaterThan(WELL_FILLED);
  });
});
