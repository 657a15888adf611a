/**
 * The interface selection's adapter: reads links and addresses over rtnetlink (the `netlink` package, prebuilt
 * N-API binaries) and follows them through netlink events (RTMGRP_LINK, IPV4_IFADDR, IPV6_IFADDR), with a full
 * rescan every INTERFACE_RESCAN_INTERVAL_MS as a fallback for a lost event (netlink multicast can overflow).
 *
 * Every event triggers a full dump rather than applying the delta: dumps are small, and a snapshot cannot drift.
 * Listeners hear about a change only when the snapshot differs. The package is loaded on start(), so importing
 * this module never fails where the binary is missing (the daemon then says why).
 */
import { requireNetlink } from '../../../native/netlink-module';
import type * as Netlink from 'netlink';
import { formatIP, ipFromBytes } from '../../../ip';
import { formatMAC } from '../mac-address';
import { REAL_BACKGROUND_RUNTIME } from '../../../runtime/real-runtime';
import type { Scheduler, Timer } from '../../../runtime/runtime';
import type { LinkAddress, LinkInfo } from './interface-selection';

/** MetalLB rescans interfaces every 10 s (announcer.go); here it is the fallback behind netlink events. */
const INTERFACE_RESCAN_INTERVAL_MS = 10_000;
/** Events come in bursts (a link up brings several address messages): one dump after the burst settles. */
const EVENT_SETTLE_MS = 20;

const AF_INET = 2;
const AF_INET6 = 10;

/** Where the L2 announcer and interface selection read links from; netlink here, a hand-written table in tests. */
export interface LinkSource {
  links(): readonly LinkInfo[];
  link(name: string): LinkInfo | undefined;
  /** Called after every snapshot that differs from the last; returns an unsubscribe function. */
  onChange(listener: (links: readonly LinkInfo[]) => void): () => void;
}

export interface NetlinkLinksOptions {
  readonly rescanIntervalMs?: number;
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

export class NetlinkLinks implements LinkSource {
  private snapshot: readonly LinkInfo[] = [];
  private fingerprint = '';
  private readonly listeners = new Set<(links: readonly LinkInfo[]) => void>();
  private rescanTimer: Timer | undefined;
  private settleTimer: Timer | undefined;
  private scanning: Promise<void> | undefined;
  private again = false;
  private closed = false;
  /** Rescans done, and how many were caused by netlink events (tests check events are followed, not polled). */
  readonly stats = { scans: 0, events: 0, changes: 0, errors: 0 };

  private constructor(
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
    const self = new NetlinkLinks(requests, events, options);
    for (const group of ['LINK', 'IPV4_IFADDR', 'IPV6_IFADDR'] as const) events.addMembership(group);
    events.on('message', () => {
      self.stats.events++;
      self.scheduleScan();
    });
    events.socket.unref();
    requests.socket.unref();
    await self.scan();
    const interval = options.rescanIntervalMs ?? INTERFACE_RESCAN_INTERVAL_MS;
    self.rescanTimer = self.scheduler.every(interval, () => void self.scan());
    return self;
  }

  links(): readonly LinkInfo[] {
    return this.snapshot;
  }

  link(name: string): LinkInfo | undefined {
    return this.snapshot.find((l) => l.name === name);
  }

  onChange(listener: (links: readonly LinkInfo[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A full dump now; concurrent calls share one dump and queue at most one more. */
  scan(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.scanning) {
      this.again = true;
      return this.scanning;
    }
    this.scanning = this.dump().finally(() => {
      this.scanning = undefined;
      if (this.again) {
        this.again = false;
        void this.scan();
      }
    });
    return this.scanning;
  }

  close(): void {
    this.closed = true;
    this.rescanTimer?.cancel();
    this.settleTimer?.cancel();
    this.listeners.clear();
    this.events.socket.close();
    this.requests.socket.close();
  }

  private scheduleScan(): void {
    if (this.settleTimer || this.closed) return;
    this.settleTimer = this.scheduler.after(EVENT_SETTLE_MS, () => {
      this.settleTimer = undefined;
      void this.scan();
    });
  }

  private async dump(): Promise<void> {
    try {
      // One dump at a time: two concurrent dumps on one socket interleave their multipart replies.
      const links = await this.requests.getLinks();
      const addresses = await this.requests.getAddresses();
      if (this.closed) return;
      this.stats.scans++;
      const next = linksFromNetlink(links, addresses);
      const fingerprint = fingerprintOf(next);
      if (fingerprint === this.fingerprint) return;
      this.fingerprint = fingerprint;
      this.snapshot = next;
      this.stats.changes++;
      for (const listener of [...this.listeners]) {
        try {
          listener(next);
        } catch (error) {
          this.options.onError?.(error as Error);
        }
      }
    } catch (error) {
      this.stats.errors++;
      this.options.onError?.(error as Error);
    }
  }
}

/** The netlink package's link and address messages -> LinkInfo, sorted by name. Pure (tests feed it fixtures). */
export function linksFromNetlink(links: readonly Netlink.rt.LinkMessage[], addresses: readonly Netlink.rt.AddressMessage[]): LinkInfo[] {
  const byIndex = new Map<number, LinkAddress[]>();
  for (const a of addresses) {
    const index = a.data.index;
    const family = a.data.family;
    if (index === undefined || (family !== AF_INET && family !== AF_INET6)) continue;
    // IFA_LOCAL is the interface's own address (IFA_ADDRESS is the peer on point-to-point links).
    const bytes = a.attrs.local ?? a.attrs.address;
    if (!bytes || bytes.length !== (family === AF_INET ? 4 : 16)) continue;
    const list = byIndex.get(index) ?? [];
    list.push({ ip: ipFromBytes(new Uint8Array(bytes)), prefix: a.data.prefixlen ?? (family === AF_INET ? 32 : 128) });
    byIndex.set(index, list);
  }
  const out: LinkInfo[] = [];
  for (const l of links) {
    const index = l.data.index;
    const name = l.attrs.ifname;
    if (index === undefined || name === undefined) continue;
    const address = l.attrs.address;
    out.push({
      index,
      name,
      mac: address && address.length === 6 ? new Uint8Array(address) : undefined,
      up: l.data.flags?.up === true,
      master: l.attrs.master !== undefined && l.attrs.master !== 0 ? l.attrs.master : undefined,
      noarp: l.data.flags?.noarp === true,
      addresses: byIndex.get(index) ?? [],
    });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function fingerprintOf(links: readonly LinkInfo[]): string {
  return JSON.stringify(
    links.map((l) => [
      l.index,
      l.name,
      l.mac ? formatMAC(l.mac) : '',
      l.up,
      l.master ?? 0,
      l.noarp,
      l.addresses.map((a) => `${formatIP(a.ip)}/${a.prefix}`).sort(),
    ]),
  );
}
