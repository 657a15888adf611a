/**
 * The interface selection's adapter: reads links and addresses over rtnetlink (the `netlink` package, prebuilt
 * N-API binaries) and follows them through netlink notifications (RTMGRP_LINK, IPV4_IFADDR, IPV6_IFADDR), each
 * applied to a table as it comes (link-table.ts), with a full dump every INTERFACE_RESCAN_INTERVAL_MS and after a
 * socket error as the fallback for a lost notification (netlink multicast overflows).
 *
 * Notifications are applied, not answered with a dump: with 10,000 VIPs on mlb0 a dump is 10,000 messages, and
 * one after each of the 10,000 notifications that binding them brings made binding quadratic. Listeners hear
 * about a change (after a short settle, once per burst) only when it can matter to them (link-table.ts); the
 * address changes of each link are told at once to onAddressChange. The package is loaded on start(), so
 * importing this module never fails where the binary is missing (the daemon then says why).
 */
import { requireNetlink } from '../../../native/netlink-module';
import type * as Netlink from 'netlink';
import { ipFromBytes } from '../../../ip';
import { REAL_BACKGROUND_RUNTIME } from '../../../runtime/real-runtime';
import type { Scheduler, Timer } from '../../../runtime/runtime';
import type { LinkAddress, LinkInfo } from './interface-selection';
import { LinkTable, dumpWithEvents, type AddressChange, type LinkEvent, type LinkHeader } from './link-table';
import { ADDRESS_DUMP_REQUEST, decodeAddressMessage } from './address-message';

/** MetalLB rescans interfaces every 10 s (announcer.go); here it is the fallback behind netlink events. */
const INTERFACE_RESCAN_INTERVAL_MS = 10_000;
/**
 * Every how many rescans the addresses are dumped too (60 s): the links alone are a few messages, the addresses
 * of a node holding 10,000 VIPs are 10,000, and their dump every 10 s was most of an idle daemon's CPU (the
 * kernel's side and the decoding). A lost notification is not silent: the kernel tells of an overflow with
 * ENOBUFS, answered by a full dump at once; this one is the fallback behind that.
 */
const ADDRESS_RESCAN_EVERY = 6;
/** Notifications come in bursts (a link up brings several address messages): listeners hear once the burst settles. */
const EVENT_SETTLE_MS = 20;

/**
 * SO_RCVBUF of the notification socket: binding thousands of VIPs brings a notification each, faster than a busy
 * loop may read them. Capped by the kernel at net.core.rmem_max; an overflow costs a dump (ENOBUFS below).
 */
const EVENT_RECEIVE_BUFFER_BYTES = 4 << 20;

const AF_INET = 2;
const AF_INET6 = 10;

/** Where the L2 announcer and interface selection read links from; netlink here, a hand-written table in tests. */
export interface LinkSource {
  links(): readonly LinkInfo[];
  link(name: string): LinkInfo | undefined;
  /** Called after every snapshot that differs from the last; returns an unsubscribe function. */
  onChange(listener: (links: readonly LinkInfo[]) => void): () => void;
}

/** The addresses of each link as the kernel reports them, one change at a time (the VIP binder's view of mlb0). */
export interface AddressSource {
  addressesOf(index: number): LinkAddress[];
  /** Called at once for each address that appears or leaves; returns an unsubscribe function. */
  onAddressChange(listener: (change: AddressChange) => void): () => void;
}

export interface NetlinkLinksOptions {
  readonly rescanIntervalMs?: number;
  /** Every how many rescans the addresses are dumped too (ADDRESS_RESCAN_EVERY unless a test says otherwise). */
  readonly addressRescanEvery?: number;
  /** The rescan and settle timers (default: real, not keeping the process alive by themselves). */
  readonly runtime?: Scheduler;
  /** A dump failed (the previous snapshot stays). */
  readonly onError?: (error: Error) => void;
}

type NetlinkModule = typeof Netlink;
let loaded: NetlinkModule | undefined;
function netlinkModule(): NetlinkModule {
  if (!loaded) loaded = requireNetlink();
  return loaded;
}

export class NetlinkLinks implements LinkSource, AddressSource {
  private readonly table = new LinkTable();
  private readonly listeners = new Set<(links: readonly LinkInfo[]) => void>();
  private readonly addressListeners = new Set<(change: AddressChange) => void>();
  private rescanTimer: Timer | undefined;
  private settleTimer: Timer | undefined;
  private scanning: Promise<void> | undefined;
  /** A scan was asked for while one ran: one more follows it (full when any of those asked for a full one). */
  private again: 'links' | 'full' | undefined;
  /** Periodic rescans so far (every ADDRESS_RESCAN_EVERY-th dumps the addresses too). */
  private rescans = 0;
  private closed = false;
  /** The notifications read while a dump is under way, applied on top of it (dumpWithEvents). */
  private duringDump: LinkEvent[] | undefined;
  /** Dumps done (addressScans of them with the addresses), notifications applied, changes told, failed dumps. */
  readonly stats = { scans: 0, addressScans: 0, events: 0, changes: 0, errors: 0 };

  private constructor(
    private readonly nl: NetlinkModule,
    private readonly requests: Netlink.RtNetlinkSocket,
    private readonly events: Netlink.RtNetlinkSocket,
    private readonly options: NetlinkLinksOptions,
  ) {}

  private get scheduler(): Scheduler {
    return this.options.runtime ?? REAL_BACKGROUND_RUNTIME;
  }

  /** Opens the sockets, subscribes, and resolves after the first full scan. */
  static async start(options: NetlinkLinksOptions = {}): Promise<NetlinkLinks> {
    const nl = netlinkModule();
    const requests = nl.createRtNetlink();
    const events = nl.createRtNetlink();
    const self = new NetlinkLinks(nl, requests, events, options);
    for (const group of ['LINK', 'IPV4_IFADDR', 'IPV6_IFADDR'] as const) events.addMembership(group);
    events.socket.setRecvBufferSize(EVENT_RECEIVE_BUFFER_BYTES);
    // The raw socket's messages keep their type (RTM_NEWADDR or RTM_DELADDR), which the parsed ones lose.
    // Called from the native addon: a throw there aborts the process, so nothing may escape.
    events.socket.on('message', (messages: readonly Netlink.NetlinkMessage[]) => {
      try {
        self.received(messages);
      } catch (error) {
        self.options.onError?.(error as Error);
      }
    });
    // ENOBUFS: the kernel dropped notifications. Only a dump says what they were.
    events.socket.on('error', (error: Error) => {
      self.options.onError?.(error);
      void self.scan();
    });
    // An 'error' event without a listener would throw inside the addon's callback (and abort the process).
    requests.socket.on('error', (error: Error) => self.options.onError?.(error));
    events.socket.unref();
    requests.socket.unref();
    await self.scan();
    const interval = options.rescanIntervalMs ?? INTERFACE_RESCAN_INTERVAL_MS;
    const addressesEvery = options.addressRescanEvery ?? ADDRESS_RESCAN_EVERY;
    self.rescanTimer = self.scheduler.every(interval, () => void self.scan(++self.rescans % addressesEvery === 0 ? 'full' : 'links'));
    return self;
  }

  links(): readonly LinkInfo[] {
    return this.table.links();
  }

  link(name: string): LinkInfo | undefined {
    return this.table.links().find((l) => l.name === name);
  }

  addressesOf(index: number): LinkAddress[] {
    return this.table.addressesOf(index);
  }

  onChange(listener: (links: readonly LinkInfo[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onAddressChange(listener: (change: AddressChange) => void): () => void {
    this.addressListeners.add(listener);
    return () => this.addressListeners.delete(listener);
  }

  /**
   * A dump now: of links and addresses (`full`, the default) or of the links alone. Concurrent calls share one
   * dump and queue at most one more.
   */
  scan(what: 'links' | 'full' = 'full'): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.scanning) {
      this.again = this.again === 'full' ? 'full' : what;
      return this.scanning;
    }
    this.scanning = this.dump(what).finally(() => {
      this.scanning = undefined;
      const again = this.again;
      this.again = undefined;
      if (again) void this.scan(again);
    });
    return this.scanning;
  }

  close(): void {
    this.closed = true;
    this.rescanTimer?.cancel();
    this.settleTimer?.cancel();
    this.listeners.clear();
    this.addressListeners.clear();
    this.events.socket.close();
    this.requests.socket.close();
  }

  private received(messages: readonly Netlink.NetlinkMessage[]): void {
    if (this.closed) return;
    const types = this.nl.rt.MessageType;
    for (const message of messages) {
      let event: LinkEvent | undefined;
      try {
        event =
          message.type === types.NEWADDR || message.type === types.DELADDR
            ? addressEventFrom(message.type === types.NEWADDR, message.data)
            : linkEventFrom(message.type, this.nl.rt.parseMessage(message.type, message.data), types);
      } catch {
        continue; // a message type this table does not follow
      }
      if (!event) continue;
      this.stats.events++;
      this.duringDump?.push(event);
      this.told(this.table.apply(event));
    }
  }

  private told(change: { notable: boolean; addressChanges: readonly AddressChange[] }): void {
    for (const c of change.addressChanges) {
      for (const listener of [...this.addressListeners]) {
        try {
          listener(c);
        } catch (error) {
          this.options.onError?.(error as Error);
        }
      }
    }
    if (change.notable) this.scheduleNotify();
  }

  private scheduleNotify(): void {
    if (this.settleTimer || this.closed) return;
    this.settleTimer = this.scheduler.after(EVENT_SETTLE_MS, () => {
      this.settleTimer = undefined;
      this.notify();
    });
  }

  private notify(): void {
    if (this.closed) return;
    this.stats.changes++;
    const links = this.table.links();
    for (const listener of [...this.listeners]) {
      try {
        listener(links);
      } catch (error) {
        this.options.onError?.(error as Error);
      }
    }
  }

  private async dump(what: 'links' | 'full'): Promise<void> {
    try {
      // One dump at a time: two concurrent dumps on one socket interleave their multipart replies.
      this.duringDump = [];
      const links = await this.requests.getLinks();
      const addresses = what === 'full' ? await this.dumpAddresses() : [];
      if (this.closed) return;
      this.stats.scans++;
      if (what === 'full') this.stats.addressScans++;
      const dumped = tableFromNetlink(links, addresses);
      const current = dumpWithEvents(dumped.headers, dumped.byIndex, this.duringDump);
      this.duringDump = undefined;
      const change = what === 'full' ? this.table.replace(current.links, current.addresses) : this.table.replaceLinks(current.links);
      for (const c of change.addressChanges) for (const listener of [...this.addressListeners]) listener(c);
      // The first dump is the start, not a change; after it, listeners hear at once of what the dump found.
      if (change.notable && this.stats.scans > 1) {
        this.settleTimer?.cancel();
        this.settleTimer = undefined;
        this.notify();
      }
    } catch (error) {
      this.duringDump = undefined;
      this.stats.errors++;
      this.options.onError?.(error as Error);
    }
  }

  /** Every address, decoded from the raw messages (address-message.ts): with 10,000 VIPs, the bulk of a dump. */
  private async dumpAddresses(): Promise<{ index: number; address: LinkAddress }[]> {
    const { MessageType } = this.nl.rt;
    const [messages] = await this.requests.socket.request(MessageType.GETADDR, ADDRESS_DUMP_REQUEST, { flags: this.nl.FlagsGet.DUMP });
    const out: { index: number; address: LinkAddress }[] = [];
    for (const m of messages) {
      const entry = m.type === MessageType.NEWADDR ? decodeAddressMessage(m.data) : undefined;
      if (entry) out.push(entry);
    }
    return out;
  }
}

/** An address notification as a table event; undefined for a family or body the table does not follow. */
function addressEventFrom(added: boolean, body: Uint8Array): LinkEvent | undefined {
  const entry = decodeAddressMessage(body);
  if (!entry) return undefined;
  return added ? { kind: 'address', ...entry } : { kind: 'addressGone', ...entry };
}

/** A link notification as a table event; undefined for what the table does not follow (addresses: addressEventFrom). */
function linkEventFrom(
  type: number,
  parsed: Netlink.rt.Message,
  types: { readonly NEWLINK: number; readonly DELLINK: number },
): LinkEvent | undefined {
  if (parsed.kind !== 'link') return undefined;
  const header = headerFrom(parsed);
  if (!header) return undefined;
  if (type === types.DELLINK) return { kind: 'linkGone', index: header.index };
  return type === types.NEWLINK ? { kind: 'link', link: header } : undefined;
}

function headerFrom(l: Netlink.rt.LinkMessage): LinkHeader | undefined {
  const index = l.data.index;
  const name = l.attrs.ifname;
  if (index === undefined || name === undefined) return undefined;
  const address = l.attrs.address;
  return {
    index,
    name,
    mac: address && address.length === 6 ? new Uint8Array(address) : undefined,
    up: l.data.flags?.up === true,
    master: l.attrs.master !== undefined && l.attrs.master !== 0 ? l.attrs.master : undefined,
    noarp: l.data.flags?.noarp === true,
  };
}

function addressFrom(a: Netlink.rt.AddressMessage): { index: number; address: LinkAddress } | undefined {
  const index = a.data.index;
  const family = a.data.family;
  if (index === undefined || (family !== AF_INET && family !== AF_INET6)) return undefined;
  // IFA_LOCAL is the interface's own address (IFA_ADDRESS is the peer on point-to-point links).
  const bytes = a.attrs.local ?? a.attrs.address;
  if (!bytes || bytes.length !== (family === AF_INET ? 4 : 16)) return undefined;
  return { index, address: { ip: ipFromBytes(new Uint8Array(bytes)), prefix: a.data.prefixlen ?? (family === AF_INET ? 32 : 128) } };
}

function tableFromNetlink(
  links: readonly Netlink.rt.LinkMessage[],
  addresses: readonly ({ index: number; address: LinkAddress } | undefined)[],
): { headers: LinkHeader[]; byIndex: Map<number, LinkAddress[]> } {
  const byIndex = new Map<number, LinkAddress[]>();
  for (const entry of addresses) {
    if (!entry) continue;
    const list = byIndex.get(entry.index) ?? [];
    list.push(entry.address);
    byIndex.set(entry.index, list);
  }
  const headers: LinkHeader[] = [];
  for (const l of links) {
    const header = headerFrom(l);
    if (header) headers.push(header);
  }
  return { headers, byIndex };
}

/** The netlink package's link and address messages -> LinkInfo, sorted by name. Pure (tests feed it fixtures). */
export function linksFromNetlink(links: readonly Netlink.rt.LinkMessage[], addresses: readonly Netlink.rt.AddressMessage[]): LinkInfo[] {
  const { headers, byIndex } = tableFromNetlink(links, addresses.map(addressFrom));
  return headers
    .map((h) => ({ ...h, addresses: byIndex.get(h.index) ?? [] }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
