/**
 * The L2 announcer: carries out reconcileL2's effects with real packet sockets and timers. Not pure.
 *
 * The daemon calls reconcile() with the full set of (IP, interfaces) this node owns, every time; the announcer
 * converges to it: an ARP socket (ARP-only BPF filter) per interface with an IPv4 address to answer for, an NDP
 * socket (Neighbor-Solicitation-only filter) per interface with an IPv6 one, the solicited-node groups joined on
 * it, and the gratuitous schedule (reduceGratuitous) on a MachineDriver (gratuitous-driver.ts). Every received
 * frame goes through respondToFrame; a reply goes back out of the socket it came in on.
 *
 * Interfaces are followed through a LinkSource (netlink): a link that disappears loses its sockets, a link that
 * comes back (a new ifindex) gets new ones and a fresh burst, a link coming up or changing MAC is re-announced.
 * Nothing thrown while handling a frame leaves the receive loop: it is caught and counted.
 *
 * ARP fast path: each ARP socket is also given the IPv4 addresses owned on its interface and the interface's MAC
 * (setArpFastPath, then changeArpFastPath with only the addresses gained and lost on each reconcile; a link change
 * that keeps the MAC costs nothing: arp-fast-path-mirror.ts), so plain requests for them are answered inside the
 * addon, on a thread of its own, with the very bytes respondToFrame would send; everything else (unowned targets,
 * conflicts, announcements, VLAN-tagged or malformed frames) still comes here. The addon's per-IP counters are folded into
 * requests_received / responses_sent / sendFailures whenever stats or metrics are read and before a socket closes.
 *
 * Counters (MetalLB's names, plain counters here; the metrics endpoint exposes them later):
 * metallb_layer2_requests_received{ip} (requests for an owned IP that reached the answer), responses_sent{ip}
 * (replies the kernel accepted), gratuitous_sent{ip} (one per burst per interface, as MetalLB counts).
 */
import { formatIP, type IP } from '../../ip';
import { acceptEthertypes, openPacketSocket, PacketSocketError, type PacketSocket, type PacketSocketOptions } from '../../native';
import type { L2DropReason } from './drop-reasons';
import { REAL_RUNTIME } from '../../runtime/real-runtime';
import type { Clock, Scheduler } from '../../runtime/runtime';
import { gratuitousDriver, type GratuitousDriver } from './gratuitous-driver';
import { METALLB_GRATUITOUS, type GratuitousBurst, type GratuitousChange, type GratuitousConfig } from './gratuitous-schedule';
import type { LinkInfo } from './interfaces/interface-selection';
import type { LinkSource } from './interfaces/netlink-links';
import {
  announcedPairs,
  EMPTY_L2_ANNOUNCER_STATE,
  ownedOn,
  reconcileL2,
  type DesiredAnnouncement,
  type L2AnnouncerState,
  type L2Effect,
} from './l2-announcer-state';
import { ipKey, ownedIPSet, type FrameReceipt, type L2Interface, type ObservedConflict, type OwnedIPs } from './l2-interface';
import { respondToFrame } from './l2-responder';
import { formatMAC, macEquals } from './mac-address';
import { acceptNeighborSolicitations } from './neighbor-solicitation-filter';
import { ArpFastPathMirror } from './arp-fast-path-mirror';
import type { ArpAnswerTimes } from './arp-answer-times';
import { increment, L2Counters, type L2Metric } from './l2-counters';
import { type Log, SILENT_LOG } from '../../runtime/log';

export type { L2Metric } from './l2-counters';

const ETH_P_ARP = 0x0806;
const NO_IPS: ReadonlySet<number> = new Set();

/** The IPv4 addresses announced on `interfaceName`, as the fast path's host-order numbers. */
function ownedV4On(state: L2AnnouncerState, interfaceName: string): ReadonlySet<number> {
  const ips = new Set<number>();
  for (const a of state.announced.values()) if (a.ip.family === 4 && a.interfaces.has(interfaceName)) ips.add(Number(a.ip.value));
  return ips;
}

/** The subset of a pino logger the announcer uses. */
export interface L2AnnouncerOptions {
  readonly links: LinkSource;
  readonly logger?: Log;
  readonly gratuitous?: GratuitousConfig;
  /** Injected in unit tests; openPacketSocket otherwise. */
  readonly openSocket?: (options: PacketSocketOptions) => PacketSocket;
  /** The clock and timers of the gratuitous schedule; real by default. */
  readonly runtime?: Clock & Scheduler;
  /**
   * Every sighting of another MAC claiming an address we announce (logged at debug once per ip, MAC and interface). The
   * daemon feeds its split-brain registry from it, and a graceful handover waits for the new owner's announcement.
   */
  readonly onConflict?: (conflict: ObservedConflict) => void;
}

export interface L2AnnouncerStats {
  readonly requestsReceived: Record<string, number>;
  readonly responsesSent: Record<string, number>;
  readonly gratuitousSent: Record<string, number>;
  readonly drops: Partial<Record<L2DropReason, number>>;
  /** Replies or announcements the kernel refused (queue full, link down, socket missing). */
  readonly sendFailures: number;
  /** Frames whose handling threw (should stay 0: the responder never throws). */
  readonly handlerErrors: number;
  /** Another MAC claimed an address we announce. */
  readonly conflicts: number;
  /** Socket errors by PacketSocketError code (interfaceDown, permissionDenied ...). */
  readonly socketErrors: Record<string, number>;
  /** Open sockets: interface -> { arp, ndp, ifindex, groups }. */
  readonly interfaces: Record<string, { ifindex?: number; arp: boolean; ndp: boolean; groups: string[] }>;
}

interface Port {
  readonly name: string;
  link: LinkInfo | undefined;
  iface: L2Interface | undefined;
  owned: OwnedIPs;
  /** The IPv4 addresses owned on this interface as host-order numbers (what the fast path is to answer); a new Set per reconcile. */
  ownedV4: ReadonlySet<number>;
  wantArp: boolean;
  wantNdp: boolean;
  arp: PacketSocket | undefined;
  ndp: PacketSocket | undefined;
  /** What the ARP socket's fast path holds, and its counters already folded into the announcer's. */
  readonly fastPath: ArpFastPathMirror;
  /** Solicited-node group MACs (text) to be joined on the NDP socket. */
  readonly groups: Set<string>;
}

export class L2Announcer {
  private state: L2AnnouncerState = EMPTY_L2_ANNOUNCER_STATE;
  private readonly gratuitous: GratuitousDriver;
  private readonly ports = new Map<string, Port>();
  private readonly log: Log;
  private readonly open: (options: PacketSocketOptions) => PacketSocket;
  private readonly unsubscribe: () => void;
  private closed = false;
  private readonly counters = new L2Counters();
  private readonly conflictsSeen = new Set<string>();
  /**
   * IPv4 addresses answered and announced ahead of the reconcile (answerAhead), by interface: the next reconcile
   * stops the gratuitous schedule of each one it does not own after all.
   */
  private readonly announcedAhead = new Map<Port, IP[]>();

  constructor(private readonly options: L2AnnouncerOptions) {
    this.log = options.logger ?? SILENT_LOG;
    this.open = options.openSocket ?? openPacketSocket;
    const config = options.gratuitous ?? METALLB_GRATUITOUS;
    this.gratuitous = gratuitousDriver(options.runtime ?? REAL_RUNTIME, config, (burst) => this.sendBurst(burst));
    this.unsubscribe = options.links.onChange(() => this.syncLinks());
  }

  /** Converges to `desired` (the full set this node owns); returns the effects applied, in order. */
  reconcile(desired: readonly DesiredAnnouncement[]): readonly L2Effect[] {
    if (this.closed) throw new Error('L2Announcer is closed');
    const { state, effects } = reconcileL2(this.state, desired);
    this.state = state;
    const names = new Set(this.ports.keys());
    for (const a of state.announced.values()) for (const name of a.interfaces) names.add(name);
    for (const name of names) {
      const port = this.port(name);
      port.owned = ownedOn(state, name);
      port.ownedV4 = ownedV4On(state, name);
    }
    const changes: GratuitousChange[] = [];
    for (const [port, ips] of this.announcedAhead)
      for (const ip of ips) if (!port.ownedV4.has(Number(ip.value))) changes.push({ kind: 'lost', ip, interfaceName: port.name });
    this.announcedAhead.clear();
    for (const effect of effects) {
      const change = this.apply(effect);
      if (change) changes.push(change);
    }
    // One step of the schedule for the whole reconcile, however many addresses it gained or lost.
    if (changes.length > 0) this.gratuitous.dispatch({ kind: 'changes', changes });
    // Interfaces whose sockets failed to open earlier get another chance on every reconcile.
    for (const port of this.ports.values()) this.ensureSockets(port);
    this.dropIdlePorts();
    for (const port of this.ports.values()) this.updateFastPath(port);
    return effects;
  }

  /**
   * Answers ARP for these addresses from now on, ahead of the reconcile that announces them: a binding in progress
   * reports each batch as it lands (answers-while-binding.ts), and a reconcile costs O(everything owned) where this
   * costs O(batch), so a freshly bound VIP is answered within one netlink batch instead of one progress update.
   * Only the fast path of interfaces whose fast path already answers for others gains them (IPv4), and their
   * gratuitous schedule starts at once; the next reconcile takes them over (the JavaScript path, IPv6), finds the
   * fast path holding them and the schedule running, and stops both for any it does not own after all.
   */
  answerAhead(additions: readonly DesiredAnnouncement[]): void {
    const gained = new Map<Port, IP[]>();
    for (const d of additions) {
      if (d.ip.family !== 4) continue;
      for (const name of d.interfaces) {
        const port = this.ports.get(name);
        if (!port?.arp || !port.fastPath.answering) continue;
        const list = gained.get(port);
        if (list) list.push(d.ip);
        else gained.set(port, [d.ip]);
      }
    }
    const changes: GratuitousChange[] = [];
    for (const [port, ips] of gained) {
      port.fastPath.addAhead(
        port.arp!,
        ips.map((ip) => Number(ip.value)),
      );
      // Announced too, not only answered: a client that holds the old owner's MAC in its cache asks nobody; the
      // gratuitous ARP is what moves it, and a successor's is what tells a leaving node to let the IP go. The
      // reconcile's own start of the schedule then falls inside its window and sends nothing twice.
      if (!port.iface) continue;
      const iface = port.iface;
      for (const ip of ips) changes.push({ kind: 'gained', ip, iface });
      const ahead = this.announcedAhead.get(port);
      if (ahead) for (const ip of ips) ahead.push(ip);
      else this.announcedAhead.set(port, [...ips]);
    }
    if (changes.length > 0) this.gratuitous.dispatch({ kind: 'changes', changes });
  }

  /** What is announced now: ip -> interfaces. */
  announced(): { ip: IP; interfaces: string[] }[] {
    return [...this.state.announced.values()].map((a) => ({ ip: a.ip, interfaces: [...a.interfaces].sort() }));
  }

  stats(): L2AnnouncerStats {
    this.collectFastPath();
    const obj = <K extends string>(m: Map<K, number>) => Object.fromEntries(m) as Record<K, number>;
    const interfaces: L2AnnouncerStats['interfaces'] = {};
    for (const p of this.ports.values()) {
      interfaces[p.name] = { ifindex: p.link?.index, arp: p.arp !== undefined, ndp: p.ndp !== undefined, groups: [...p.groups].sort() };
    }
    return {
      requestsReceived: obj(this.counters.requestsReceived),
      responsesSent: obj(this.counters.responsesSent),
      gratuitousSent: obj(this.counters.gratuitousSent),
      drops: obj(this.counters.drops),
      sendFailures: this.counters.sendFailures,
      handlerErrors: this.counters.handlerErrors,
      conflicts: this.counters.conflicts,
      socketErrors: obj(this.counters.socketErrors),
      interfaces,
    };
  }

  /** How long the addon's answer thread took per request (arp-answer-times.ts); undefined before it answered. */
  answerTimes(): ArpAnswerTimes | undefined {
    this.collectFastPath();
    return this.counters.answerTimes;
  }

  /** The counters under MetalLB's metric names. */
  metrics(): L2Metric[] {
    this.collectFastPath();
    return this.counters.metrics();
  }

  /** Withdraws everything (without a last announcement), closes every socket and stops the timer. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.reconcile([]);
    this.closed = true;
    this.unsubscribe();
    this.gratuitous.close();
    for (const port of this.ports.values()) this.closeSockets(port);
    this.ports.clear();
  }

  // --- effects -------------------------------------------------------------------------------------------------

  /** Carries out one effect; a gratuitous start or stop is returned, for one batched step of the schedule. */
  private apply(effect: L2Effect): GratuitousChange | undefined {
    const port = this.port(effect.interface);
    switch (effect.kind) {
      case 'createARPResponder':
      case 'createNDPResponder':
      case 'deleteARPResponder':
      case 'deleteNDPResponder': {
        const arp = effect.kind.endsWith('ARPResponder');
        const create = effect.kind.startsWith('create');
        if (arp) port.wantArp = create;
        else port.wantNdp = create;
        this.log.info(
          { event: effect.kind, interface: effect.interface, reason: effect.reason },
          `${create ? 'created' : 'deleted'} ${arp ? 'ARP' : 'NDP'} responder for interface`,
        );
        if (create) this.ensureSockets(port);
        else this.closeSocket(port, arp ? 'arp' : 'ndp');
        return undefined;
      }
      case 'joinSolicitedNodeGroup': {
        const mac = formatMAC(effect.mac);
        port.groups.add(mac);
        this.membership(port, mac, true);
        this.log.debug(
          { event: effect.kind, interface: effect.interface, group: formatIP(effect.group), reason: effect.reason },
          'joined solicited-node group',
        );
        return undefined;
      }
      case 'leaveSolicitedNodeGroup': {
        const mac = formatMAC(effect.mac);
        port.groups.delete(mac);
        this.membership(port, mac, false);
        this.log.debug(
          { event: effect.kind, interface: effect.interface, group: formatIP(effect.group), reason: effect.reason },
          'left solicited-node group',
        );
        return undefined;
      }
      case 'startGratuitous':
        if (port.iface) return { kind: 'gained', ip: effect.ip, iface: port.iface };
        this.log.warn(
          { event: 'announceDeferred', interface: effect.interface, ip: formatIP(effect.ip) },
          'interface not present: announcing when it appears',
        );
        return undefined;
      case 'stopGratuitous':
        return { kind: 'lost', ip: effect.ip, interfaceName: effect.interface };
    }
  }

  private port(name: string): Port {
    let port = this.ports.get(name);
    if (!port) {
      port = {
        name,
        link: undefined,
        iface: undefined,
        owned: ownedIPSet([]),
        ownedV4: NO_IPS,
        wantArp: false,
        wantNdp: false,
        arp: undefined,
        ndp: undefined,
        fastPath: new ArpFastPathMirror(),
        groups: new Set(),
      };
      this.refreshLink(port);
      this.ports.set(name, port);
    }
    return port;
  }

  private dropIdlePorts(): void {
    for (const [name, port] of this.ports) {
      if (!port.wantArp && !port.wantNdp && port.groups.size === 0) {
        this.closeSockets(port);
        this.ports.delete(name);
      }
    }
  }

  /** Reads the port's link from the source; true when its ifindex changed (gone, new, or re-created). */
  private refreshLink(port: Port): { indexChanged: boolean; macChanged: boolean; cameUp: boolean } {
    const before = port.link;
    const link = this.options.links.link(port.name);
    port.link = link;
    port.iface = link?.mac ? { name: port.name, mac: link.mac, addresses: link.addresses.map((a) => a.ip) } : undefined;
    return {
      indexChanged: before?.index !== link?.index,
      macChanged: before?.mac !== undefined && link?.mac !== undefined && !macEquals(before.mac, link.mac),
      cameUp: before !== undefined && !before.up && link?.up === true,
    };
  }

  /** Follows a link table change: reopen on a new ifindex, re-announce on a new ifindex, MAC or link up. */
  private syncLinks(): void {
    if (this.closed) return;
    for (const port of this.ports.values()) {
      const hadLink = port.link !== undefined;
      const { indexChanged, macChanged, cameUp } = this.refreshLink(port);
      if (indexChanged) {
        this.closeSockets(port);
        if (port.link)
          this.log.info(
            { event: hadLink ? 'interfaceRecreated' : 'interfaceAppeared', interface: port.name, ifindex: port.link.index },
            'reopening responders',
          );
        else this.log.warn({ event: 'interfaceGone', interface: port.name }, 'interface removed: responders closed until it returns');
      }
      this.ensureSockets(port);
      this.updateFastPath(port);
      if (port.iface && (indexChanged || macChanged || cameUp)) {
        for (const { ip, iface } of announcedPairs(this.state)) {
          if (iface === port.name) this.gratuitous.dispatch({ kind: 'gained', ip, iface: port.iface });
        }
      }
    }
  }

  // --- sockets -------------------------------------------------------------------------------------------------

  private ensureSockets(port: Port): void {
    if (this.closed || !port.link) return;
    if (port.wantArp && !port.arp) port.arp = this.openSocket(port, 'arp');
    if (port.wantNdp && !port.ndp) {
      port.ndp = this.openSocket(port, 'ndp');
      for (const mac of port.groups) this.membership(port, mac, true);
    }
  }

  private openSocket(port: Port, kind: 'arp' | 'ndp'): PacketSocket | undefined {
    const link = port.link;
    if (!link) return undefined;
    let socket: PacketSocket | undefined;
    try {
      socket = this.open({
        ifindex: link.index,
        protocol: kind === 'arp' ? 'arp' : 'ipv6',
        filter: kind === 'arp' ? acceptEthertypes(ETH_P_ARP) : acceptNeighborSolicitations(),
        onFrame: (frame, info) => {
          if (socket) this.receive(port, socket, frame, info);
        },
        onError: (error) => this.socketError(port, kind, error),
      });
      this.log.debug({ event: 'socketOpened', interface: port.name, ifindex: link.index, protocol: kind }, 'packet socket open');
      return socket;
    } catch (error) {
      this.socketError(port, kind, PacketSocketError.fromNative(error, port.name));
      return undefined;
    }
  }

  private closeSocket(port: Port, kind: 'arp' | 'ndp'): void {
    const socket = port[kind];
    if (kind === 'arp') {
      this.collectPortFastPath(port);
      port.fastPath.reset();
    }
    port[kind] = undefined;
    try {
      socket?.close();
    } catch {
      // closing never matters more than going on
    }
  }

  private closeSockets(port: Port): void {
    this.closeSocket(port, 'arp');
    this.closeSocket(port, 'ndp');
  }

  private membership(port: Port, mac: string, join: boolean): void {
    const socket = port.ndp;
    if (!socket) return;
    try {
      if (join) socket.addMembership(mac);
      else socket.dropMembership(mac);
    } catch (error) {
      this.socketError(port, 'ndp', PacketSocketError.fromNative(error, port.name));
    }
  }

  private socketError(port: Port, kind: 'arp' | 'ndp', error: PacketSocketError): void {
    increment(this.counters.socketErrors, error.code);
    const fields = { event: 'socketError', interface: port.name, protocol: kind, code: error.code, error: error.message };
    if (error.code === 'interfaceDown') this.log.debug(fields, 'interface is down');
    else this.log.error(fields, 'packet socket error');
  }

  // --- ARP fast path -------------------------------------------------------------------------------------------

  /** Gives the ARP socket the IPv4 addresses owned on its interface now, with the interface's current MAC. */
  private updateFastPath(port: Port): void {
    if (!port.arp) return;
    try {
      port.fastPath.sync(port.arp, port.iface?.mac, port.iface ? port.ownedV4 : NO_IPS);
    } catch (error) {
      // Without the fast path every request still reaches respondToFrame: slower, never wrong.
      this.log.error(
        { event: 'fastPathFailed', interface: port.name, error: String((error as Error)?.message ?? error) },
        'cannot set the ARP fast path',
      );
    }
  }

  private collectFastPath(): void {
    for (const port of this.ports.values()) this.collectPortFastPath(port);
  }

  private collectPortFastPath(port: Port): void {
    if (port.arp) port.fastPath.collect(port.arp, this.counters);
  }

  // --- receive -------------------------------------------------------------------------------------------------

  /** `receipt`: how the kernel delivered the frame; one it received for another station is not answered. */
  private receive(port: Port, socket: PacketSocket, frame: Uint8Array, receipt: FrameReceipt): void {
    try {
      const iface = port.iface;
      if (!iface) return;
      const result = respondToFrame(frame, iface, port.owned, receipt);
      if (result.conflict) this.conflict(result.conflict);
      if (result.reply === undefined) {
        increment(this.counters.drops, result.drop);
        return;
      }
      const ip = ipKey(result.target);
      increment(this.counters.requestsReceived, ip);
      if (socket.send(result.reply)) increment(this.counters.responsesSent, ip);
      else this.counters.sendFailures++;
    } catch (error) {
      this.counters.handlerErrors++;
      this.log.error(
        { event: 'responderFailed', interface: port.name, error: String((error as Error)?.message ?? error) },
        'frame handling threw',
      );
    }
  }

  private conflict(conflict: ObservedConflict): void {
    this.counters.conflicts++;
    this.options.onConflict?.(conflict);
    const key = `${formatIP(conflict.ip)}|${formatMAC(conflict.mac)}|${conflict.interface}`;
    if (this.conflictsSeen.has(key)) return;
    this.conflictsSeen.add(key);
    // Only a sighting: a handover's successor, a member taking back what it owns and a real split brain all look
    // alike here. The daemon's self-check judges it (members' MACs, a window, a probe) and warns only for a real
    // one (splitBrainDetected); a warning per sighting would cry wolf at every planned move.
    this.log.debug(
      {
        event: 'addressConflict',
        ip: formatIP(conflict.ip),
        mac: formatMAC(conflict.mac),
        interface: conflict.interface,
        evidence: conflict.evidence,
      },
      'another MAC claims an address this node announces',
    );
  }

  // --- gratuitous ----------------------------------------------------------------------------------------------

  private sendBurst(burst: GratuitousBurst): void {
    const port = this.ports.get(burst.interface);
    const socket = burst.ip.family === 4 ? port?.arp : port?.ndp;
    let sent = socket !== undefined;
    for (const frame of burst.frames) {
      try {
        if (!socket?.send(frame)) sent = false;
      } catch {
        sent = false;
      }
    }
    if (sent) increment(this.counters.gratuitousSent, ipKey(burst.ip));
    else this.counters.sendFailures++;
    this.log.debug(
      { event: 'gratuitousSent', interface: burst.interface, ip: formatIP(burst.ip), cause: burst.cause, ok: sent },
      'gratuitous announcement',
    );
  }
}
