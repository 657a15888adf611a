/**
 * The links and addresses of this network namespace, kept up to date one netlink notification at a time
 * (RTM_NEWLINK/DELLINK, RTM_NEWADDR/DELADDR, rtnetlink(7)) instead of a full dump after each: with 10,000 VIPs
 * on mlb0, binding them brings 10,000 notifications, and a dump of every address after each made binding
 * quadratic. A full dump still comes now and then (netlink-links.ts) and is applied with replace(), which says
 * what differed: the notifications that were lost (netlink multicast drops them when its buffer overflows).
 *
 * What changed is told apart from what listeners must hear about: an address added to or removed from a NOARP
 * link (mlb0) changes no interface selection (MetalLB's filters drop NOARP links, interface-selection.ts) nor
 * any MAC this node publishes, so it is `addressChanges` only, for the VIP binder's view of mlb0.
 */
import type { LinkAddress, LinkInfo } from './interface-selection';

/** A link without its addresses, as RTM_NEWLINK describes it. */
export type LinkHeader = Omit<LinkInfo, 'addresses'>;

/** One notification, decoded (netlink-links.ts). */
export type LinkEvent =
  | { readonly kind: 'link'; readonly link: LinkHeader }
  | { readonly kind: 'linkGone'; readonly index: number }
  | { readonly kind: 'address'; readonly index: number; readonly address: LinkAddress }
  | { readonly kind: 'addressGone'; readonly index: number; readonly address: LinkAddress };

/** An address that appeared on (present) or left (not present) the link with this index. */
export interface AddressChange {
  readonly index: number;
  readonly address: LinkAddress;
  readonly present: boolean;
}

export interface TableChange {
  /** A link came, went or changed, or an address of a link that is not NOARP did: listeners hear of it. */
  readonly notable: boolean;
  readonly addressChanges: readonly AddressChange[];
}

const NO_CHANGE: TableChange = { notable: false, addressChanges: [] };

function addressKey(a: LinkAddress): string {
  return `${a.ip.family}/${a.ip.value.toString(16)}/${a.prefix}`;
}

function sameHeader(a: LinkHeader, b: LinkHeader): boolean {
  const macA = a.mac ? a.mac.join(':') : '';
  const macB = b.mac ? b.mac.join(':') : '';
  return a.name === b.name && macA === macB && a.up === b.up && a.master === b.master && a.noarp === b.noarp;
}

export class LinkTable {
  private readonly headers = new Map<number, LinkHeader>();
  private readonly addresses = new Map<number, Map<string, LinkAddress>>();
  /** The snapshot, built again only after a change (links() is read once per owned IP). */
  private cached: readonly LinkInfo[] | undefined;

  apply(event: LinkEvent): TableChange {
    switch (event.kind) {
      case 'link': {
        const was = this.headers.get(event.link.index);
        if (was && sameHeader(was, event.link)) return NO_CHANGE;
        this.headers.set(event.link.index, event.link);
        return this.changed(true, []);
      }
      case 'linkGone': {
        if (!this.headers.has(event.index) && !this.addresses.has(event.index)) return NO_CHANGE;
        const gone = [...(this.addresses.get(event.index)?.values() ?? [])].map((address) => ({
          index: event.index,
          address,
          present: false,
        }));
        this.headers.delete(event.index);
        this.addresses.delete(event.index);
        return this.changed(true, gone);
      }
      case 'address': {
        let map = this.addresses.get(event.index);
        const key = addressKey(event.address);
        if (map?.has(key)) return NO_CHANGE;
        if (!map) this.addresses.set(event.index, (map = new Map()));
        map.set(key, event.address);
        return this.changed(this.listened(event.index), [{ index: event.index, address: event.address, present: true }]);
      }
      case 'addressGone': {
        const map = this.addresses.get(event.index);
        if (!map?.delete(addressKey(event.address))) return NO_CHANGE;
        return this.changed(this.listened(event.index), [{ index: event.index, address: event.address, present: false }]);
      }
    }
  }

  /** A full dump: the table becomes it, and what differed is returned as if it had been notified. */
  replace(links: readonly LinkHeader[], addresses: ReadonlyMap<number, readonly LinkAddress[]>): TableChange {
    const linksChange = this.replaceLinks(links);
    let notable = linksChange.notable;
    const addressChanges: AddressChange[] = [...linksChange.addressChanges];
    for (const { index } of links) {
      const wanted = new Map((addresses.get(index) ?? []).map((a) => [addressKey(a), a]));
      const have = this.addresses.get(index) ?? new Map<string, LinkAddress>();
      for (const [key, address] of [...have]) {
        if (wanted.has(key)) continue;
        const change = this.apply({ kind: 'addressGone', index, address });
        notable ||= change.notable;
        addressChanges.push(...change.addressChanges);
      }
      for (const [key, address] of wanted) {
        if (have.has(key)) continue;
        const change = this.apply({ kind: 'address', index, address });
        notable ||= change.notable;
        addressChanges.push(...change.addressChanges);
      }
    }
    return { notable, addressChanges };
  }

  /**
   * A dump of the links alone: the table's links become it (a link gone takes its addresses with it), and the
   * addresses of the links that stay are kept as the notifications left them.
   */
  replaceLinks(links: readonly LinkHeader[]): TableChange {
    let notable = false;
    const addressChanges: AddressChange[] = [];
    const seen = new Set<number>();
    for (const link of links) {
      seen.add(link.index);
      const change = this.apply({ kind: 'link', link }); // applied first: `||=` would skip it once notable
      notable ||= change.notable;
    }
    for (const index of [...this.headers.keys(), ...this.addresses.keys()]) {
      if (seen.has(index)) continue;
      const change = this.apply({ kind: 'linkGone', index });
      notable ||= change.notable;
      addressChanges.push(...change.addressChanges);
    }
    return { notable, addressChanges };
  }

  /** Every link with its addresses, sorted by name. */
  links(): readonly LinkInfo[] {
    if (!this.cached) {
      const out: LinkInfo[] = [];
      for (const header of this.headers.values())
        out.push({ ...header, addresses: [...(this.addresses.get(header.index)?.values() ?? [])] });
      this.cached = out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    }
    return this.cached;
  }

  /** The addresses of one link, read without building the snapshot. */
  addressesOf(index: number): LinkAddress[] {
    return [...(this.addresses.get(index)?.values() ?? [])];
  }

  /** Whether an address change on this link concerns listeners: not on a NOARP link (nor on one not known yet). */
  private listened(index: number): boolean {
    return this.headers.get(index)?.noarp !== true;
  }

  private changed(notable: boolean, addressChanges: readonly AddressChange[]): TableChange {
    this.cached = undefined;
    return { notable, addressChanges };
  }
}

/**
 * A dump brought up to date with the notifications read while it was taken. A dump is not atomic with respect to
 * them: an address added during it may be missing from it although its notification was already applied, and
 * replacing the table with the bare dump would report it gone (and the VIP binder would repair what was fine).
 * The notifications come in the kernel's order, so applying them on top gives the latest state either way.
 */
export function dumpWithEvents(
  links: readonly LinkHeader[],
  addresses: ReadonlyMap<number, readonly LinkAddress[]>,
  events: readonly LinkEvent[],
): { links: readonly LinkHeader[]; addresses: ReadonlyMap<number, readonly LinkAddress[]> } {
  // Nothing came meanwhile (every rescan of an idle host): the dump is the state as it is.
  if (events.length === 0) return { links, addresses };
  const headers = new Map(links.map((l) => [l.index, l]));
  const byIndex = new Map<number, Map<string, LinkAddress>>();
  for (const [index, list] of addresses) byIndex.set(index, new Map(list.map((a) => [addressKey(a), a])));
  for (const e of events) {
    if (e.kind === 'link') headers.set(e.link.index, e.link);
    else if (e.kind === 'linkGone') {
      headers.delete(e.index);
      byIndex.delete(e.index);
    } else {
      let map = byIndex.get(e.index);
      if (!map) byIndex.set(e.index, (map = new Map()));
      if (e.kind === 'address') map.set(addressKey(e.address), e.address);
      else map.delete(addressKey(e.address));
    }
  }
  return { links: [...headers.values()], addresses: new Map([...byIndex].map(([i, m]) => [i, [...m.values()]])) };
}
