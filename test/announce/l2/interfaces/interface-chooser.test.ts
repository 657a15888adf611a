/**
 * Interface selection made once per kind of IP (src/announce/l2/interfaces/interface-chooser.ts): for any links,
 * IP and advertised list, the chooser's answer is selectInterfaces' own, and IPs alike share one selection.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InterfaceChooser, selectInterfaces, type LinkInfo } from '../../../../src/announce/l2/interfaces';
import { parseIP, type IP } from '../../../../src/ip';
import { ethernetLink, vipLink } from '../../../support/host-links';

const ip = (text: string) => parseIP(text) as IP;
const NAMES = ['eth0', 'eth1', 'bond0', 'docker0', 'mlb0'];
const ADDRESSES = ['10.0.0.1/24', '10.0.1.1/16', '192.0.2.1/32', '192.0.2.10/28', 'fd00::1/64', 'fd00:1::1/48'];
const IPS = ['10.0.0.5', '10.0.200.7', '192.0.2.1', '192.0.2.12', '198.51.100.1', 'fd00::5', 'fd00:1:2::9', '2001:db8::1'];

const linkArb = (name: string, index: number): fc.Arbitrary<LinkInfo> =>
  fc
    .record({
      up: fc.boolean(),
      noarp: fc.boolean(),
      enslaved: fc.boolean(),
      mac: fc.boolean(),
      addresses: fc.subarray(ADDRESSES),
    })
    .map((r) => ({
      index,
      name,
      mac: r.mac ? Uint8Array.of(2, 0, 0, 0, 0, index) : undefined,
      up: r.up,
      master: r.enslaved ? 99 : undefined,
      noarp: r.noarp,
      addresses: r.addresses.map((a) => ({ ip: ip(a.split('/')[0]!), prefix: Number(a.split('/')[1]) })),
    }));

const linksArb = fc.subarray(NAMES, { minLength: 1 }).chain((names) => fc.tuple(...names.map((n, i) => linkArb(n, i + 2))));

describe('InterfaceChooser', () => {
  it('chooses as selectInterfaces does, for any links, IP and list', () => {
    fc.assert(
      fc.property(
        linksArb,
        fc.array(fc.tuple(fc.constantFrom(...IPS), fc.subarray([...NAMES, 'eth9'])), { minLength: 1, maxLength: 12 }),
        (links, asks) => {
          const chooser = new InterfaceChooser(links);
          for (const [text, list] of asks) {
            const address = ip(text);
            expect(chooser.select(address, list)).toEqual(selectInterfaces(address, links, list.length > 0 ? { interfaces: list } : {}));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('makes one selection for a thousand IPs of one subnet, and keeps VIPs bound on a NOARP link out of it', () => {
    const links = [ethernetLink(['10.0.0.1/16']), vipLink(Array.from({ length: 1000 }, (_, i) => ip(`10.0.${i >> 8}.${i & 255}`)))];
    const chooser = new InterfaceChooser(links);
    const selections = new Set(Array.from({ length: 1000 }, (_, i) => chooser.select(ip(`10.0.${i >> 8}.${i & 255}`), []).choices));
    expect(selections.size).toBe(1);
  });
});
