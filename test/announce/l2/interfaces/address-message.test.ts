/**
 * RTM_NEWADDR bodies decoded for the link table (src/announce/l2/interfaces/address-message.ts): the same
 * interface index, address and prefix as the netlink package's full decoder reads from the same bytes, IFA_LOCAL
 * over IFA_ADDRESS, and nothing from a family or body the table does not follow.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import type * as Netlink from 'netlink';
import { parseIP, type IP } from '../../../../src/ip';
import { decodeAddressMessage } from '../../../../src/announce/l2/interfaces/address-message';

const nl = createRequire(import.meta.url)('netlink') as typeof Netlink;
const ip = (s: string): IP => parseIP(s)!;

/** The bytes the kernel would send, written by the netlink package's own formatter. */
function body(data: Netlink.rt.AddressMessage['data'], attrs: Netlink.rt.AddressMessage['attrs']): Uint8Array {
  const out = new nl.AttrStream();
  nl.rt.formatAddressMessage({ kind: 'address', data, attrs }, out);
  return Buffer.concat(out.bufs);
}

describe('address messages', () => {
  it('reads what the netlink package reads: index, prefix, IFA_LOCAL over IFA_ADDRESS', () => {
    const cases = [
      body({ family: 2, prefixlen: 24, index: 4 }, { address: Buffer.from([10, 0, 0, 2]), label: 'eth0' }),
      body({ family: 2, prefixlen: 32, index: 70_000 }, { address: Buffer.from([10, 9, 9, 9]), local: Buffer.from([10, 1, 1, 1]) }),
      body({ family: 10, prefixlen: 64, index: 5 }, { address: Buffer.from('fd000000000000000000000000000002', 'hex') }),
    ];
    const decoded = cases.map((b) => decodeAddressMessage(b));
    expect(decoded).toEqual([
      { index: 4, address: { ip: ip('10.0.0.2'), prefix: 24 } },
      { index: 70_000, address: { ip: ip('10.1.1.1'), prefix: 32 } },
      { index: 5, address: { ip: ip('fd00::2'), prefix: 64 } },
    ]);
    for (const [i, b] of cases.entries()) {
      const parsed = nl.rt.parseMessage(nl.rt.MessageType.NEWADDR, Buffer.from(b)) as Netlink.rt.AddressMessage;
      expect(decoded[i]?.index).toBe(parsed.data.index);
      expect(decoded[i]?.address.prefix).toBe(parsed.data.prefixlen);
    }
  });

  it('reads a body inside a larger buffer (the messages of one dump share it)', () => {
    const one = body({ family: 2, prefixlen: 18, index: 2 }, { local: Buffer.from([10, 214, 0, 2]) });
    const shared = new Uint8Array(one.length + 13);
    shared.set(one, 13);
    expect(decodeAddressMessage(shared.subarray(13))).toEqual({ index: 2, address: { ip: ip('10.214.0.2'), prefix: 18 } });
  });

  it('skips other families, bodies without an address, and truncated attributes', () => {
    const mpls = body({ family: 28, prefixlen: 20, index: 3 }, { address: Buffer.from([1, 2, 3]) });
    expect(decodeAddressMessage(mpls)).toBeUndefined();
    expect(decodeAddressMessage(body({ family: 2, prefixlen: 24, index: 3 }, { label: 'eth0' }))).toBeUndefined();
    const v4 = body({ family: 2, prefixlen: 24, index: 3 }, { address: Buffer.from([10, 0, 0, 2]) });
    expect(decodeAddressMessage(v4.subarray(0, v4.length - 2))).toBeUndefined();
    expect(decodeAddressMessage(v4.subarray(0, 4))).toBeUndefined();
    // A v6 family with a 4-byte address: not an address of that family.
    expect(decodeAddressMessage(body({ family: 10, prefixlen: 64, index: 3 }, { address: Buffer.from([10, 0, 0, 2]) }))).toBeUndefined();
  });
});
