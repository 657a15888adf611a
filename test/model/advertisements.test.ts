import { describe, expect, it } from 'vitest';
import { parseCommunity } from '../../src/model';
import { POOL, fixture, parseErrors, parseOk } from './parse-helpers';

describe('L2Advertisement', () => {
  it("reads a tutorial lab's L2Advertisement: the default pool announced on ens18, every node, every service", () => {
    const ad = parseOk(fixture('valid', 'tutorial-l2.yaml')).l2Advertisements[0];
    expect(ad).toMatchObject({
      ipAddressPools: ['default'],
      interfaces: ['ens18'],
      nodeSelectors: [],
      serviceSelectors: [],
      ipAddressPoolSelectors: [],
    });
  });

  it('reads selectors of every kind', () => {
    const ad = parseOk(fixture('valid', 'full-featured.yaml')).l2Advertisements[0];
    expect(ad?.ipAddressPoolSelectors).toEqual([{ matchLabels: { tier: 'public' }, matchExpressions: [] }]);
    expect(ad?.nodeSelectors).toEqual([
      {
        matchLabels: {},
        matchExpressions: [{ key: 'node-role.kubernetes.io/control-plane', operator: 'DoesNotExist', values: [] }],
      },
    ]);
    expect(ad?.interfaces).toEqual(['eth0', 'eth1']);
    expect(ad?.serviceSelectors).toEqual([{ matchLabels: { expose: 'l2' }, matchExpressions: [] }]);
  });

  it('refuses two identical nodeSelectors, as MetalLB does', () => {
    const sel = '    - matchLabels:\n        rack: r1\n';
    const errors = parseErrors(
      `${POOL('p', '10.0.0.0/24')}---\napiVersion: metallb.io/v1beta1\nkind: L2Advertisement\nmetadata:\n  name: l2\nspec:\n  nodeSelectors:\n${sel}${sel}`,
    );
    expect(errors.map((e) => e.message)).toEqual(['duplicate definition of nodeSelectors "rack=r1"']);
  });

  it('refuses values with Exists', () => {
    const errors = parseErrors(
      'apiVersion: metallb.io/v1beta1\nkind: L2Advertisement\nmetadata:\n  name: l2\nspec:\n  nodeSelectors:\n    - matchExpressions:\n        - key: a\n          operator: Exists\n          values: [x]\n',
    );
    expect(errors.map((e) => e.message)).toEqual(['values must be empty when the operator is Exists']);
  });
});

describe('BGPAdvertisement and communities', () => {
  it('applies MetalLB defaults: /32 and /128, no local preference, every peer', () => {
    const ad = parseOk(fixture('valid', 'tutorial-bgp.yaml')).bgpAdvertisements[0];
    expect(ad).toMatchObject({ aggregationLength: 32, aggregationLengthV6: 128, peers: [], communities: [], communityValues: [] });
    expect(ad?.localPref).toBeUndefined();
  });

  it('resolves Community aliases and reads values of both kinds', () => {
    const ad = parseOk(fixture('valid', 'full-featured.yaml')).bgpAdvertisements[0];
    expect(ad).toMatchObject({ aggregationLength: 30, aggregationLengthV6: 120, localPref: 150, peers: ['tor-a', 'tor-b'] });
    expect(ad?.communities).toEqual(['no-advertise', '65000:100', 'large:64512:1:2']);
    expect(ad?.communityValues).toEqual([
      { kind: 'standard', text: '65535:65282', value: 0xffff_ff02 },
      { kind: 'standard', text: '65000:100', value: 65000 * 65536 + 100 },
      { kind: 'large', text: '64512:1:2', global: 64512, local1: 1, local2: 2 },
    ]);
  });

  it('parses community syntax as internal/bgp/community does', () => {
    expect(parseCommunity('0:0')).toMatchObject({ ok: true, value: { value: 0 } });
    expect(parseCommunity('65535:65535')).toMatchObject({ ok: true, value: { value: 0xffffffff } });
    expect(parseCommunity('large:4294967295:0:1')).toMatchObject({ ok: true, value: { global: 4294967295 } });
    expect(parseCommunity('65000:-1')).toMatchObject({ ok: false, problem: 'badValue' });
    expect(parseCommunity('large:4294967296:0:1')).toMatchObject({ ok: false, problem: 'badValue' });
    expect(parseCommunity('no-export')).toMatchObject({ ok: false, problem: 'notACommunity' });
    expect(parseCommunity('1:2:3')).toMatchObject({ ok: false, problem: 'notACommunity' });
  });

  it('checks aggregation lengths per family against the pools an advertisement covers', () => {
    const v6pool = POOL('v6', 'fd00::/120');
    const ad =
      'apiVersion: metallb.io/v1beta1\nkind: BGPAdvertisement\nmetadata:\n  name: ad\nspec:\n  aggregationLength: 8\n  aggregationLengthV6: 64\n';
    const errors = parseErrors(`${v6pool}---\n${ad}`);
    expect(errors.map((e) => e.message)).toEqual([
      'invalid aggregation length 64: prefix 120 in this pool is more specific than the aggregation length for addresses fd00::/120 (pool "v6")',
    ]);
    expect(errors[0]?.position?.line).toBe(15); // aggregationLengthV6, not aggregationLength
  });
});
