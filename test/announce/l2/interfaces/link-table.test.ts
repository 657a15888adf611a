/**
 * The link table kept from netlink notifications (src/announce/l2/interfaces/link-table.ts): what an address
 * change on mlb0 (NOARP) tells listeners and the VIP binder, and a dump that raced with notifications applied
 * without reporting an address gone that is there.
 */
import { describe, expect, it } from 'vitest';
import { parseIP, type IP } from '../../../../src/ip';
import { dumpWithEvents, LinkTable, type LinkHeader } from '../../../../src/announce/l2/interfaces/link-table';

const ip = (text: string): IP => parseIP(text) as IP;
const ETH0: LinkHeader = { index: 2, name: 'eth0', mac: new Uint8Array([2, 0x13, 0, 0, 0, 1]), up: true, master: undefined, noarp: false };
const MLB0: LinkHeader = { index: 3, name: 'mlb0', mac: new Uint8Array([2, 0x13, 0, 0, 0, 9]), up: true, master: undefined, noarp: true };
const vip = (text: string) => ({ ip: ip(text), prefix: 32 });

describe('link table', () => {
  it('follows address notifications one at a time; those on a NOARP link reach the binder, not the listeners', () => {
    const table = new LinkTable();
    table.replace([ETH0, MLB0], new Map([[2, [{ ip: ip('10.213.0.1'), prefix: 24 }]]]));
    const added = table.apply({ kind: 'address', index: 3, address: vip('10.214.0.1') });
    expect(added).toEqual({ notable: false, addressChanges: [{ index: 3, address: vip('10.214.0.1'), present: true }] });
    expect(table.links().find((l) => l.name === 'mlb0')?.addresses).toEqual([vip('10.214.0.1')]);
    // The same notification twice changes nothing.
    expect(table.apply({ kind: 'address', index: 3, address: vip('10.214.0.1') }).addressChanges).toEqual([]);
    // On eth0 (announcing), listeners hear of it: the interface selection may change.
    expect(table.apply({ kind: 'address', index: 2, address: vip('10.213.0.7') }).notable).toBe(true);
    expect(table.apply({ kind: 'addressGone', index: 3, address: vip('10.214.0.1') }).addressChanges).toEqual([
      { index: 3, address: vip('10.214.0.1'), present: false },
    ]);
  });

  it('a dump taken while an address was being added does not report that address gone', () => {
    const table = new LinkTable();
    table.replace([ETH0, MLB0], new Map());
    // The notification is read (and applied) while the dump is under way; the dump itself predates the add.
    const during = [{ kind: 'address' as const, index: 3, address: vip('10.214.0.2') }];
    table.apply(during[0]!);
    const current = dumpWithEvents([ETH0, MLB0], new Map(), during);
    expect(table.replace(current.links, current.addresses)).toEqual({ notable: false, addressChanges: [] });
    expect(table.addressesOf(3)).toEqual([vip('10.214.0.2')]);
    // A bare dump would have said it was gone.
    expect(table.replace([ETH0, MLB0], new Map()).addressChanges).toEqual([{ index: 3, address: vip('10.214.0.2'), present: false }]);
  });

  it('a dump of the links alone keeps the addresses the notifications left, and drops those of a link gone', () => {
    const table = new LinkTable();
    table.replace([ETH0, MLB0], new Map([[3, [vip('10.214.0.1'), vip('10.214.0.2')]]]));
    expect(table.replaceLinks([ETH0, MLB0])).toEqual({ notable: false, addressChanges: [] });
    expect(table.addressesOf(3)).toEqual([vip('10.214.0.1'), vip('10.214.0.2')]);
    // eth0 went down meanwhile: a link change listeners hear of.
    expect(table.replaceLinks([{ ...ETH0, up: false }, MLB0]).notable).toBe(true);
    // mlb0 deleted: its addresses go with it, told to the binder.
    expect(table.replaceLinks([ETH0])).toEqual({
      notable: true,
      addressChanges: [
        { index: 3, address: vip('10.214.0.1'), present: false },
        { index: 3, address: vip('10.214.0.2'), present: false },
      ],
    });
    expect(table.links().map((l) => l.name)).toEqual(['eth0']);
  });
});
