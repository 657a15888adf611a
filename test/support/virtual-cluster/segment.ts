/**
 * One shared layer-2 segment for a virtual cluster: which node answers ARP for which service IP, as a switch (or a
 * client's ARP cache) would see it, with every change stamped on the virtual clock. It stands in for each node's
 * L2Announcer: a node's reconcile() is its whole announced set, and an IP a node newly announces is a gratuitous
 * ARP that every other node still announcing that IP receives as "another MAC claims this address" (the
 * ObservedConflict with evidence 'arpAnnouncement' that arp-responder.ts reports, through the speaker's
 * LayerTwoHooks.onConflict): the signal a leaving node's handover waits for.
 *
 * The receiver gets it as a task of its own runtime, so a crashed node hears nothing, and only if it still
 * announces the IP when the frame arrives (the real responder checks its owned set on receipt).
 *
 * The split-brain self-check's probe ("who has this IP?", probe-once.ts) is answered here too (`probe`): by every
 * node announcing the IP and every intruder (a machine outside the cluster with the address configured,
 * `addIntruder`), each with its MAC, except those the prober cannot reach. Reachability is the cluster's to say
 * (`reachable`): a partition that cuts the switch between two groups cuts their ARP as well as their gossip.
 */
import type { ObservedConflict } from '../../../src/announce/l2/l2-interface';
import type { DesiredAnnouncement } from '../../../src/announce/l2/l2-announcer-state';
import { formatMAC, parseMAC, type MacAddress } from '../../../src/announce/l2/mac-address';
import type { LayerTwoHooks } from '../../../src/daemon/speaker-parts';
import { formatIP, parseIP } from '../../../src/ip';
import type { Clock, Scheduler } from '../../../src/runtime';
import type { ProbeOnceOutcome } from '../../../src/announce/l2/arping/probe-once';
import { PROBE_REPLY_WINDOW_MS } from '../../../src/announce/l2/arping/probe-once';
import type { ProbeRequest } from '../../../src/daemon/self-check/self-checker';

/** The interface every virtual node announces on. */
export const SEGMENT_INTERFACE = 'eth0';

/** One node's attachment to the segment: one process's life (a restart attaches again). */
export interface SegmentPort {
  readonly node: string;
  readonly mac: MacAddress;
  /** False once the process died: what it asks is ignored, what is sent to it is lost. */
  alive(): boolean;
  readonly hooks: LayerTwoHooks;
  /** The node's timers: a received frame is handled as one of its tasks. */
  readonly scheduler: Scheduler;
}

/** An IP's announcers changed: who answers from `at` on (sorted node names; empty: nobody answers). */
export interface AnnouncerChange {
  readonly at: number;
  readonly ip: string;
  readonly announcers: readonly string[];
}

/** Whether a frame from one station (node name or intruder MAC) reaches another; everyone reaches everyone by default. */
export type Reachable = (from: string, to: string) => boolean;

/** A machine outside the cluster answering ARP for an IP with its own MAC (the address configured by hand). */
export interface Intruder {
  readonly ip: string;
  /** Lowercase, colon-separated. */
  readonly mac: string;
}

export class VirtualSegment {
  private readonly ports = new Map<string, SegmentPort>();
  private readonly announcing = new Map<string, Set<string>>();
  private readonly intruders: Intruder[] = [];
  /** Every probe a node's self-check sent, with the MACs that answered it. */
  readonly probes: { at: number; by: string; ip: string; macs: readonly string[] }[] = [];
  /** Every change of every IP's announcers, in order. */
  readonly changes: AnnouncerChange[] = [];
  /** Every claim a node received from another one, in order (what handovers and split brains are made of). */
  readonly claimsSeen: { at: number; ip: string; by: string; seenBy: string }[] = [];

  constructor(
    private readonly clock: Clock,
    private readonly reachable: Reachable = () => true,
  ) {}

  /**
   * A machine outside the cluster starts answering for `ip` with `mac`: it answers every probe from then on, and
   * its gratuitous ARP (sent when the address comes up) reaches every node announcing the IP.
   */
  addIntruder(ip: string, mac: string): void {
    const intruder = { ip, mac: mac.toLowerCase() };
    this.intruders.push(intruder);
    const address = parseIP(ip);
    if (!address) return;
    for (const other of this.ports.values()) {
      if (!this.announcing.get(other.node)?.has(ip) || !this.reachable(intruder.mac, other.node)) continue;
      other.scheduler.after(0, () => {
        if (!other.alive() || !this.announcing.get(other.node)?.has(ip)) return;
        this.claimsSeen.push({ at: this.clock.now(), ip, by: intruder.mac, seenBy: other.node });
        other.hooks.onConflict({ ip: address, mac: parseMAC(intruder.mac)!, interface: SEGMENT_INTERFACE, evidence: 'arpAnnouncement' });
      });
    }
  }

  /** The intruder is unplugged (or its address removed): it answers nothing any more. */
  removeIntruder(ip: string, mac: string): void {
    const at = this.intruders.findIndex((i) => i.ip === ip && i.mac === mac.toLowerCase());
    if (at >= 0) this.intruders.splice(at, 1);
  }

  /**
   * The self-check's probe from `port`'s node: an ARP request for the target, broadcast on the segment. Every
   * station answering for the IP that the prober reaches replies with its MAC (the prober's own MAC included: the
   * checker drops its own); the probe returns what it heard once its reply window (probe-once.ts) is over, or at
   * once when aborted. Answers are taken when the request goes out: a LAN reply takes a millisecond, the window
   * hundreds.
   */
  probe(port: SegmentPort, request: ProbeRequest): Promise<ProbeOnceOutcome> {
    const ip = formatIP(request.target);
    const nodes = this.announcers(ip).filter((node) => this.ports.has(node) && this.reachable(node, port.node));
    const macs = [
      ...nodes.map((node) => formatMAC(this.ports.get(node)!.mac)),
      ...this.intruders.filter((i) => i.ip === ip && this.reachable(i.mac, port.node)).map((i) => i.mac),
    ];
    this.probes.push({ at: this.clock.now(), by: port.node, ip, macs });
    return new Promise((resolve) => {
      const done = (): void => {
        request.signal.removeEventListener('abort', done);
        resolve({ sent: true, macs, socketErrors: [] });
      };
      if (request.signal.aborted) return done();
      request.signal.addEventListener('abort', done, { once: true });
      port.scheduler.after(PROBE_REPLY_WINDOW_MS, done);
    });
  }

  /** A node process plugs in; its previous life's announcements are gone already (detach). */
  attach(port: SegmentPort): void {
    this.ports.set(port.node, port);
  }

  /** The node's process is gone (crash, or exit after stop): nothing answers for it any more. */
  detach(node: string): void {
    this.ports.delete(node);
    this.set(node, new Set());
  }

  /** The node's announcer converges to exactly `desired`. */
  reconcile(port: SegmentPort, desired: readonly DesiredAnnouncement[]): void {
    if (!port.alive() || this.ports.get(port.node) !== port) return;
    const next = new Set(desired.filter((d) => d.interfaces.includes(SEGMENT_INTERFACE)).map((d) => formatIP(d.ip)));
    const before = this.announcing.get(port.node) ?? new Set<string>();
    this.set(port.node, next);
    for (const ip of next) if (!before.has(ip)) this.gratuitous(port, ip);
  }

  /** Who answers for `ip` now (sorted). */
  announcers(ip: string): string[] {
    return [...this.announcing]
      .filter(([, ips]) => ips.has(ip))
      .map(([node]) => node)
      .sort();
  }

  /** What `node` answers for now (sorted). */
  announcedBy(node: string): string[] {
    return [...(this.announcing.get(node) ?? [])].sort();
  }

  /** How many IPs `node` announces now: announcedBy's length without copying and sorting them (for polling). */
  announcedCount(node: string): number {
    return this.announcing.get(node)?.size ?? 0;
  }

  /** Every IP anyone ever announced (sorted). */
  ips(): string[] {
    return [...new Set(this.changes.map((c) => c.ip))].sort();
  }

  /** The IP's announcer history from `since` on, the state just before `since` first. */
  historyOf(ip: string, since = Number.NEGATIVE_INFINITY): AnnouncerChange[] {
    const mine = this.changes.filter((c) => c.ip === ip);
    const before = mine.filter((c) => c.at < since).at(-1);
    return [...(before ? [{ ...before, at: since }] : []), ...mine.filter((c) => c.at >= since)];
  }

  private set(node: string, next: Set<string>): void {
    const before = this.announcing.get(node) ?? new Set<string>();
    const touched = [...new Set([...before, ...next])].filter((ip) => before.has(ip) !== next.has(ip));
    this.announcing.set(node, next);
    for (const ip of touched.sort()) this.changes.push({ at: this.clock.now(), ip, announcers: this.announcers(ip) });
  }

  /** `from` starts answering for `ip`: its gratuitous ARP reaches every other node announcing it. */
  private gratuitous(from: SegmentPort, ip: string): void {
    const address = parseIP(ip);
    if (!address) return;
    for (const other of this.ports.values()) {
      if (other === from || !this.announcing.get(other.node)?.has(ip) || !this.reachable(from.node, other.node)) continue;
      other.scheduler.after(0, () => {
        if (!other.alive() || !this.announcing.get(other.node)?.has(ip)) return;
        this.claimsSeen.push({ at: this.clock.now(), ip, by: from.node, seenBy: other.node });
        const conflict: ObservedConflict = { ip: address, mac: from.mac, interface: SEGMENT_INTERFACE, evidence: 'arpAnnouncement' };
        other.hooks.onConflict(conflict);
      });
    }
  }
}
