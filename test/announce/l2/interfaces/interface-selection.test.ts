import { describe, expect, it } from 'vitest';
import { parseIP, type IP } from '../../../../src/ip';
import {
  DEFAULT_EXCLUDED_INTERFACES,
  excludedBy,
  linksFromNetlink,
  METALLB_EXCLUDED_INTERFACES,
  selectInterfaces,
  type LinkInfo,
} from '../../../../src/announce/l2/interfaces';
import { parseMAC } from '../../../../src/announce/l2/mac-address';

const ip = (s: string): IP => parseIP(s)!;
let index = 0;
function link(name: string, cidrs: string[] = [], over: Partial<LinkInfo> = {}): LinkInfo {
  index++;
  return {
    index,
    name,
    mac: parseMAC(`02:00:00:00:00:${index.toString(16).padStart(2, '0')}`),
    up: true,
    master: undefined,
    noarp: false,
    addresses: cidrs.map((c) => {
      const [a, p] = c.split('/');
      return { ip: ip(a!), prefix: Number(p) };
    }),
    ...over,
  };
}

describe('interface selection', () => {
  it("keeps MetalLB's exclude list and adds mlb's", () => {
    for (const p of METALLB_EXCLUDED_INTERFACES) expect(DEFAULT_EXCLUDED_INTERFACES).toContain(p);
    for (const name of [
      'docker0',
      'cbr0',
      'dummy0',
      'virbr0',
      'lxcbr0',
      'veth12ab',
      'lo',
      'cali123',
      'tunl0',
      'flannel.1',
      'kube-ipvs0',
      'cni0',
      'nodelocaldns',
      'lxc99',
      'cilium_host',
      'vxlan.calico',
      'weave',
      'kube-bridge',
    ]) {
      expect(excludedBy(name), name).toBeDefined();
    }
    for (const name of ['eth0', 'ens3', 'bond0', 'br0', 'lo0', 'kube-bridge2', 'enp0s31f6']) expect(excludedBy(name), name).toBeUndefined();
  });

  it('filters down, enslaved, NOARP, excluded and MAC-less links, each with its reason', () => {
    const links = [
      link('eth0', ['10.0.0.2/24']),
      link('eth1', ['10.0.0.3/24'], { up: false }),
      link('eth2', ['10.0.0.4/24'], { master: 9 }),
      link('eth3', ['10.0.0.5/24'], { noarp: true }),
      link('docker0', ['10.0.0.6/24']),
      link('wg0', ['10.0.0.7/24'], { mac: undefined }),
    ];
    const s = selectInterfaces(ip('10.0.0.100'), links);
    expect(s.selected).toEqual(['eth0']);
    expect(s.warning).toBeUndefined();
    expect(Object.fromEntries(s.choices.map((c) => [c.interface, c.reason]))).toEqual({
      docker0: 'excluded',
      eth0: 'subnetContainsVip',
      eth1: 'down',
      eth2: 'enslaved',
      eth3: 'noarp',
      wg0: 'noLinkLayerAddress',
    });
    expect(s.choices.find((c) => c.interface === 'eth0')?.detail).toBe('10.0.0.0/24');
    expect(s.choices.find((c) => c.interface === 'docker0')?.detail).toBe('^docker.*');
  });

  it('answers only where the subnet contains the VIP, per family', () => {
    const links = [link('eth0', ['10.0.0.2/24', 'fd00::2/64']), link('eth1', ['192.168.1.2/24', 'fd01::2/64'])];
    expect(selectInterfaces(ip('192.168.1.50'), links).selected).toEqual(['eth1']);
    expect(selectInterfaces(ip('fd00::50'), links).selected).toEqual(['eth0']);
    const mismatch = selectInterfaces(ip('10.0.0.9'), links).choices.find((c) => c.interface === 'eth1');
    expect(mismatch).toEqual({ interface: 'eth1', selected: false, reason: 'subnetMismatch' });
  });

  it('falls back to every eligible interface, with a warning, when no subnet contains the VIP', () => {
    const links = [link('eth0', ['10.0.0.2/24']), link('eth1', ['192.168.1.2/24']), link('lo', ['127.0.0.1/8'])];
    const s = selectInterfaces(ip('172.16.0.1'), links);
    expect(s.selected).toEqual(['eth0', 'eth1']);
    expect(s.warning).toBe('noInterfaceInVipSubnet');
    expect(s.choices.filter((c) => c.selected).every((c) => c.reason === 'fallbackNoSubnetMatch')).toBe(true);
  });

  it('an explicit list overrides the exclude list and the subnet check, but not up/enslaved/NOARP', () => {
    const links = [link('eth0', ['10.0.0.2/24']), link('dummy0', []), link('eth1', [], { up: false }), link('eth2', [])];
    const s = selectInterfaces(ip('10.0.0.100'), links, { interfaces: ['dummy0', 'eth1', 'eth9'] });
    expect(s.selected).toEqual(['dummy0']);
    expect(Object.fromEntries(s.choices.map((c) => [c.interface, c.reason]))).toEqual({
      dummy0: 'explicitlyListed',
      eth0: 'notListed',
      eth1: 'down',
      eth2: 'notListed',
      eth9: 'notFound',
    });
    expect(selectInterfaces(ip('10.0.0.100'), links, { interfaces: ['eth9'] }).warning).toBe('noUsableInterface');
  });

  it('reads the netlink package messages: IFA_LOCAL over IFA_ADDRESS, master, flags, MAC', () => {
    const mac = Buffer.from('021300000002', 'hex');
    const links = linksFromNetlink(
      [
        { kind: 'link', data: { index: 4, flags: { up: true } }, attrs: { ifname: 'eth0', address: mac } },
        { kind: 'link', data: { index: 5, flags: { noarp: true } }, attrs: { ifname: 'ptp0', master: 7 } },
      ] as never,
      [
        { kind: 'address', data: { family: 2, prefixlen: 24, index: 4 }, attrs: { address: Buffer.from([10, 0, 0, 2]) } },
        {
          kind: 'address',
          data: { family: 10, prefixlen: 64, index: 4 },
          attrs: { address: Buffer.from('fd000000000000000000000000000002', 'hex') },
        },
        {
          kind: 'address',
          data: { family: 2, prefixlen: 32, index: 5 },
          attrs: { address: Buffer.from([10, 9, 9, 9]), local: Buffer.from([10, 1, 1, 1]) },
        },
      ] as never,
    );
    expect(links.map((l) => [l.name, l.up, l.noarp, l.master, l.mac?.length, l.addresses.length])).toEqual([
      ['eth0', true, false, undefined, 6, 2],
      ['ptp0', false, true, 7, undefined, 1],
    ]);
    expect(links[1]!.addresses[0]!.ip).toEqual(ip('10.1.1.1'));
  });
});
