/** Which interface `mlb arping` asks on (src/cli/arping/arping-interface.ts): -I, else the subnet's one interface. */
import { describe, expect, it } from 'vitest';
import { parseIP, type IP } from '../../src/ip';
import { parseMAC } from '../../src/announce/l2/mac-address';
import { chooseInterface, type HostInterface } from '../../src/cli/arping/arping-interface';

const ip = (text: string): IP => parseIP(text) as IP;
const host = (name: string, addresses: string[], extra: Partial<HostInterface> = {}): HostInterface => ({
  name,
  mac: parseMAC('02:00:00:00:00:01'),
  up: true,
  addresses: addresses.map((a) => {
    const [address, prefix] = a.split('/');
    return { ip: ip(address as string), prefix: Number(prefix) };
  }),
  ...extra,
});

const lo = host('lo', ['127.0.0.1/8', '::1/128'], { mac: undefined });
const eth0 = host('eth0', ['10.213.0.1/24', 'fd00:213::1/64', 'fe80::1/64']);
const eth1 = host('eth1', ['192.168.10.20/24', 'fe80::2/64']);
const down = host('eth2', ['172.16.0.1/16'], { up: false });

describe('chooseInterface', () => {
  it('picks the one interface whose subnet holds the IP, IPv4 or IPv6', () => {
    expect(chooseInterface(ip('10.213.0.200'), [lo, eth0, eth1])).toMatchObject({ ok: true, iface: { name: 'eth0' } });
    expect(chooseInterface(ip('192.168.10.200'), [lo, eth0, eth1])).toMatchObject({ ok: true, iface: { name: 'eth1' } });
    expect(chooseInterface(ip('fd00:213::5'), [lo, eth0, eth1])).toMatchObject({ ok: true, iface: { name: 'eth0' } });
  });

  it('no subnet holds it: a usage problem listing the candidates with their addresses, never loopback', () => {
    const c = chooseInterface(ip('8.8.8.8'), [lo, eth0, eth1]);
    expect(c.ok).toBe(false);
    expect(!c.ok && c.problem).toBe(
      'no interface has a subnet holding 8.8.8.8; choose one with -I. Candidates: ' +
        'eth0 (10.213.0.1/24 fd00:213::1/64 fe80::1/64), eth1 (192.168.10.20/24 fe80::2/64)',
    );
  });

  it('several subnets hold it (a link-local address is on every link): ask for -I', () => {
    const c = chooseInterface(ip('fe80::99'), [lo, eth0, eth1]);
    expect(!c.ok && c.problem).toMatch(/fe80::99 is on the subnet of 2 interfaces: eth0 .*, eth1 .*; choose one with -I/);
  });

  it('-I wins over subnets; an unknown, loopback or down interface is refused with a reason', () => {
    expect(chooseInterface(ip('10.213.0.200'), [eth0, eth1], 'eth1')).toMatchObject({ ok: true, iface: { name: 'eth1' } });
    expect(chooseInterface(ip('10.213.0.200'), [lo, eth0], 'wlan9')).toEqual({
      ok: false,
      problem: 'no interface named "wlan9" here; Ethernet interfaces: eth0',
    });
    expect(chooseInterface(ip('127.0.0.2'), [lo, eth0], 'lo')).toEqual({
      ok: false,
      problem: 'lo has no Ethernet address: ARP and NDP need an Ethernet interface',
    });
    expect(chooseInterface(ip('172.16.0.9'), [down], 'eth2')).toEqual({ ok: false, problem: 'eth2 is down' });
    expect(chooseInterface(ip('172.16.0.9'), [down])).toMatchObject({ ok: false, problem: expect.stringMatching(/^eth2 is down/) });
  });
});
