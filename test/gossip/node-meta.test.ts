import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decodeNodeMeta, encodeNodeMeta, type NodeMeta, NodeMetaError } from '../../src/gossip/node-meta';
import { META_MAX_BYTES } from '../../src/gossip/messages';

const meta: NodeMeta = {
  labels: { 'node.kubernetes.io/exclude-from-external-load-balancers': '', 'topology.kubernetes.io/zone': 'rack-1' },
  conditions: [{ type: 'NetworkUnavailable', status: 'False' }],
  draining: true,
  warmingUp: false,
};

describe('mlb node meta', () => {
  it('round-trips labels (empty values too), conditions and flags', () => {
    const bytes = encodeNodeMeta(meta);
    expect(Buffer.from(bytes.subarray(0, 4)).toString('latin1')).toBe('mlb\x01');
    expect(decodeNodeMeta(bytes)).toEqual(meta);
  });

  it('reads a MetalLB speaker (no Meta) or foreign bytes as "not mlb"', () => {
    expect(decodeNodeMeta(undefined)).toBeUndefined();
    expect(decodeNodeMeta(new Uint8Array())).toBeUndefined();
    expect(decodeNodeMeta(Buffer.from('{"role":"web"}'))).toBeUndefined();
  });

  it('treats damaged meta as not mlb instead of throwing', () => {
    const bytes = encodeNodeMeta(meta);
    for (let cut = 0; cut < bytes.length; cut++) expect(() => decodeNodeMeta(bytes.subarray(0, cut))).not.toThrow();
    expect(decodeNodeMeta(bytes.subarray(0, bytes.length - 1))).toBeUndefined();
  });

  it("carries the node's MACs after the conditions, where older decoders stop reading", () => {
    const withMacs: NodeMeta = { ...meta, macs: ['02:13:00:00:00:01', 'aa:bb:cc:dd:ee:ff'] };
    const bytes = encodeNodeMeta(withMacs);
    expect(decodeNodeMeta(bytes)).toEqual(withMacs);
    expect(bytes.subarray(0, encodeNodeMeta(meta).length)).toEqual(encodeNodeMeta(meta));
    expect(decodeNodeMeta(bytes.subarray(0, bytes.length - 1))).toBeUndefined();
    expect(() => encodeNodeMeta({ ...meta, macs: ['02:13:00'] })).toThrow(/not a MAC address/);
  });

  it('refuses meta over 512 bytes with advice', () => {
    const labels = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`example.com/label-${i}`, 'x'.repeat(20)]));
    expect(() => encodeNodeMeta({ ...meta, labels })).toThrow(NodeMetaError);
    expect(() => encodeNodeMeta({ ...meta, labels })).toThrow(/allows 512 bytes: publish fewer or shorter labels/);
  });

  it('round-trips any meta that fits (property)', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ maxLength: 30 }), fc.string({ maxLength: 30 }), { maxKeys: 8 }),
        fc.boolean(),
        fc.boolean(),
        (labels, draining, warmingUp) => {
          const m: NodeMeta = { labels, conditions: [], draining, warmingUp };
          const bytes = encodeNodeMeta(m);
          expect(bytes.length).toBeLessThanOrEqual(META_MAX_BYTES);
          expect(decodeNodeMeta(bytes)).toEqual(m);
        },
      ),
    );
  });
});
