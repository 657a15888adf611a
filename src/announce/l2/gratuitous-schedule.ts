/**
 * The gratuitous announcement schedule as a reducer: (state, event, now) -> { state, bursts, nextDeadline }.
 * Time is injected; the caller sends the frames and calls back with a `tick` at nextDeadline.
 *
 * MetalLB (internal/layer2/announcer.go spamLoop): when an address is (re)announced, send at once unless it is
 * already being spammed, and keep sending every 1100 ms until 5 s after the last change; an entry past its stop
 * time is dropped at the next tick without sending. From a standing start that is bursts at 0, 1100, 2200, 3300
 * and 4400 ms (5500 > 5000 ends it): the five pairs a tcpdump of a MetalLB speaker shows. A change during the
 * window moves the stop time to 5 s after it, with no extra burst; MetalLB rearms its timer after each burst, so
 * a late tick shifts the cadence rather than catching up.
 *
 * Per burst (MetalLB's Gratuitous): IPv4, an ARP request announcement and an ARP reply, both broadcast, sender IP
 * = target IP = the VIP, target MAC ff:ff:ff:ff:ff:ff; IPv6, one unsolicited NA to ff02::1 with Override=1,
 * Solicited=0 (RFC 4861 7.2.6).
 *
 * Beyond MetalLB v0.16 (later MetalLB added a speaker-wide interval, metallb#3125): an optional refresh
 * interval keeps sending a burst every refreshIntervalMs for as long as the address is owned, for switches and
 * hosts that let a stale entry outlive a takeover (FDB aging shorter than ARP timeouts, metallb#2910). Off by default.
 *
 * Keys are (interface, IP): gaining an address on a second interface starts that interface's own schedule.
 */
import { compareIP, type IP } from '../../ip';
import { arpGratuitousPair, encodeArpFrame } from './arp-packet';
import { advertisementSource, ipKey, type L2Interface } from './l2-interface';
import { BROADCAST_MAC, macEquals } from './mac-address';
import { encodeNdpFrame, NDP_HOP_LIMIT } from './ndp-packet';
import { ALL_NODES_ADDRESS, ipv6MulticastMAC } from './solicited-node';

export interface GratuitousConfig {
  /** Between bursts while a change is fresh. */
  readonly intervalMs: number;
  /** How long after the last change bursts continue. */
  readonly windowMs: number;
  /** Beyond MetalLB: a burst this often after the window, while owned; undefined = off. */
  readonly refreshIntervalMs?: number;
}

/**
 * metallb#172: 1.1 s apart so that if one burst lands inside a receiver's ARP-cache locktime (Linux: 1 s, during
 * which further updates are ignored) the next arrives after it has expired. 5 s is MetalLB's window.
 */
export const GRATUITOUS_INTERVAL_MS = 1100;
export const GRATUITOUS_WINDOW_MS = 5000;
export const METALLB_GRATUITOUS: GratuitousConfig = { intervalMs: GRATUITOUS_INTERVAL_MS, windowMs: GRATUITOUS_WINDOW_MS };

interface ScheduleEntry {
  readonly ip: IP;
  readonly iface: L2Interface;
  /** When the next burst (or end-of-window check) is due. */
  readonly nextAt: number;
  /** Bursts at the fast cadence while now <= windowEnd. */
  readonly windowEnd: number;
  readonly lastBurstAt: number;
  readonly phase: 'window' | 'refresh';
}

export interface GratuitousState {
  readonly entries: ReadonlyMap<string, ScheduleEntry>;
}

export const EMPTY_GRATUITOUS_STATE: GratuitousState = { entries: new Map() };

export type GratuitousEvent =
  /** Ownership of `ip` gained (or changed: re-announced, MAC changed) on `iface`. */
  | { readonly kind: 'gained'; readonly ip: IP; readonly iface: L2Interface }
  /** No longer owned on that interface: the schedule stops without a last burst. */
  | { readonly kind: 'lost'; readonly ip: IP; readonly interfaceName: string }
  /** Time has passed; send whatever is due. */
  | { readonly kind: 'tick' }
  /**
   * Several gains and losses at one instant, as one step: a reload or a stop changes thousands of addresses at
   * once, and one step per address copied the whole schedule each time (quadratic: seconds at 10,000 VIPs).
   */
  | { readonly kind: 'changes'; readonly changes: readonly GratuitousChange[] };

/** A gain or a loss, as in a 'changes' event. */
export type GratuitousChange = Extract<GratuitousEvent, { kind: 'gained' | 'lost' }>;

export interface GratuitousBurst {
  readonly interface: string;
  readonly ip: IP;
  /** Whole Ethernet frames, in the order to send them. */
  readonly frames: readonly Uint8Array[];
  /** 'change' for the burst at once, 'window' for the 1100 ms repeats, 'refresh' for the optional refresh. */
  readonly cause: 'change' | 'window' | 'refresh';
}

export interface GratuitousStep {
  readonly state: GratuitousState;
  readonly bursts: readonly GratuitousBurst[];
  /** When to tick next; undefined when nothing is scheduled. */
  readonly nextDeadline: number | undefined;
}

function entryKey(interfaceName: string, ip: IP): string {
  return `${interfaceName}|${ipKey(ip)}`;
}

export function reduceGratuitous(
  state: GratuitousState,
  event: GratuitousEvent,
  now: number,
  config: GratuitousConfig = METALLB_GRATUITOUS,
): GratuitousStep {
  const entries = new Map(state.entries);
  const bursts: GratuitousBurst[] = [];
  switch (event.kind) {
    case 'gained':
    case 'lost':
      applyChange(entries, bursts, event, now, config);
      break;
    case 'changes':
      for (const change of event.changes) applyChange(entries, bursts, change, now, config);
      break;
    case 'tick':
      for (const [key, entry] of state.entries) {
        if (entry.nextAt > now) continue;
        const next = advance(entry, now, config, bursts);
        if (next) entries.set(key, next);
        else entries.delete(key);
      }
      break;
  }
  bursts.sort((a, b) => (a.interface < b.interface ? -1 : a.interface > b.interface ? 1 : compareIP(a.ip, b.ip)));
  return { state: { entries }, bursts, nextDeadline: earliest(entries) };
}

function applyChange(
  entries: Map<string, ScheduleEntry>,
  bursts: GratuitousBurst[],
  event: GratuitousChange,
  now: number,
  config: GratuitousConfig,
): void {
  if (event.kind === 'lost') {
    entries.delete(entryKey(event.interfaceName, event.ip));
    return;
  }
  const key = entryKey(event.iface.name, event.ip);
  const old = entries.get(key);
  const fresh = old === undefined || old.phase === 'refresh' || !macEquals(old.iface.mac, event.iface.mac);
  if (fresh) {
    bursts.push(burst(event.ip, event.iface, 'change'));
    entries.set(key, {
      ip: event.ip,
      iface: event.iface,
      nextAt: now + config.intervalMs,
      windowEnd: now + config.windowMs,
      lastBurstAt: now,
      phase: 'window',
    });
  } else {
    // Already spamming: MetalLB only moves the stop time (m[key] = now + 5s).
    entries.set(key, { ...old, iface: event.iface, windowEnd: now + config.windowMs });
  }
}

/** One due entry at `now`: burst and reschedule, switch to refresh, or end (undefined). */
function advance(entry: ScheduleEntry, now: number, config: GratuitousConfig, bursts: GratuitousBurst[]): ScheduleEntry | undefined {
  if (entry.phase === 'window' && now <= entry.windowEnd) {
    bursts.push(burst(entry.ip, entry.iface, 'window'));
    return { ...entry, lastBurstAt: now, nextAt: now + config.intervalMs };
  }
  const refresh = config.refreshIntervalMs;
  if (refresh === undefined || refresh <= 0) return undefined;
  const dueAt = entry.phase === 'window' ? entry.lastBurstAt + refresh : entry.nextAt;
  if (dueAt > now) return { ...entry, phase: 'refresh', nextAt: dueAt };
  bursts.push(burst(entry.ip, entry.iface, 'refresh'));
  return { ...entry, phase: 'refresh', lastBurstAt: now, nextAt: now + refresh };
}

function earliest(entries: ReadonlyMap<string, ScheduleEntry>): number | undefined {
  let min: number | undefined;
  for (const e of entries.values()) if (min === undefined || e.nextAt < min) min = e.nextAt;
  return min;
}

function burst(ip: IP, iface: L2Interface, cause: GratuitousBurst['cause']): GratuitousBurst {
  return { interface: iface.name, ip, frames: gratuitousFrames(ip, iface), cause };
}

/** The frames of one burst for `ip` on `iface` (see the header comment for their exact shape). */
function gratuitousFrames(ip: IP, iface: L2Interface): Uint8Array[] {
  if (ip.family === 4) {
    return arpGratuitousPair(iface.mac, ip).map((packet) => encodeArpFrame(packet, BROADCAST_MAC, iface.mac));
  }
  const advert = encodeNdpFrame(
    {
      source: advertisementSource(iface, ip),
      destination: ALL_NODES_ADDRESS,
      hopLimit: NDP_HOP_LIMIT,
      message: {
        kind: 'advertisement',
        router: false,
        solicited: false,
        override: true,
        target: ip,
        options: [{ kind: 'targetLinkLayer', mac: iface.mac }],
      },
    },
    ipv6MulticastMAC(ALL_NODES_ADDRESS),
    iface.mac,
  );
  return [advert];
}
