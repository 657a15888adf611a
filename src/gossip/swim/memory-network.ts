import type { GossipMessage } from '../messages';
import { addressKey, type PeerAddress } from './address';
import { FAST_CONFIG, type SwimConfig } from './config';
import type { SwimEffect, SwimOutEvent, LogReason } from './effects';
import type { SwimEvent } from './events';
import type { Member, MemberState } from './member-table';
import { Random, seedRng } from './random';
import type { SwimState } from './state';
import { EventQueue } from './event-queue';
import { createSwimNode, step, type StepResult } from './swim-node';

/**
 * A deterministic simulated network for SWIM reducers (the role of memberlist's MockNetwork, plus faults):
 * a virtual clock, per-link latency, jitter and loss, partitions, crashes and restarts, and CPU-saturated
 * nodes. No sockets and no real time, so tests run dozens of nodes through minutes of virtual time in
 * milliseconds. Everything random comes from one seed.
 *
 * Model. Packets: delivered after latency + jitter unless lost or partitioned. Streams (TCP): each leg (SYN,
 * SYN-ACK, request, reply) pays latency and, when "lost", a retransmission delay (1 s for SYN legs, 200 ms
 * otherwise, Linux's initial RTO and minimum RTO); a crashed peer refuses at once, a partitioned one never
 * answers (the reducer's own deadline times the stream out). A CPU-saturated node handles its events one at a
 * time, each costing `cpuCost` ms of virtual time, so its timers, acks and replies run late.
 */
export interface LinkConditions {
  /** One-way delay in ms. */
  readonly latency: number;
  /** Extra delay, uniform in [0, jitter). */
  readonly jitter: number;
  /** Probability that a packet (or a TCP segment, costing a retransmission) is lost. */
  readonly loss: number;
}

export interface MemoryNetworkOptions {
  readonly seed: number;
  readonly config?: SwimConfig;
  readonly link?: Partial<LinkConditions>;
  /** Every live node re-joins all other nodes' addresses this often (MetalLB re-joins every minute). */
  readonly rejoinInterval?: number;
}

export interface RecordedEvent {
  readonly time: number;
  readonly node: string;
  readonly event: SwimOutEvent;
}

/** TCP's retransmission delays in the stream model (Linux: initial RTO 1 s for SYNs, minimum RTO 200 ms). */
export const SYN_RETRANSMIT_MS = 1_000;
export const SEGMENT_RETRANSMIT_MS = 200;
/** A segment retransmitted this many times gives up (the stream then never completes). */
export const MAX_SEGMENT_TRIES = 8;
export const DEFAULT_LINK: LinkConditions = Object.freeze({ latency: 0.2, jitter: 0.1, loss: 0 });
const SIM_PORT = 7946;

interface SimNode {
  readonly name: string;
  readonly index: number;
  readonly addr: Uint8Array;
  state: SwimState | undefined;
  /** Bumped at every crash and restart: work scheduled for an older epoch is void. */
  epoch: number;
  /** The tick currently scheduled for the node's next deadline (older ones are ignored). */
  tickAt: number;
  busyUntil: number;
  cpuCost: number;
  /** Virtual ms spent handling events (cpuCost each), and the longest wait of an event for the CPU. */
  busyTime: number;
  maxQueueDelay: number;
  meta?: Uint8Array;
}

interface InboundStream {
  readonly initiator: string;
  readonly initiatorEpoch: number;
  readonly initiatorStream: number;
  readonly responder: string;
}

export class MemoryNetwork {
  now = 0;
  readonly config: SwimConfig;
  readonly events: RecordedEvent[] = [];
  /** How often each log reason occurred, over all nodes and restarts. */
  readonly logCounts = new Map<LogReason, number>();
  packetsSent = 0;
  packetsLost = 0;
  private readonly nodes = new Map<string, SimNode>();
  private readonly byAddress = new Map<string, SimNode>();
  private readonly queue = new EventQueue();
  private readonly random: Random;
  private readonly link: LinkConditions;
  private readonly linkOverrides = new Map<string, LinkConditions>();
  private readonly inbound = new Map<number, InboundStream>();
  private nextInbound = 1;
  private groups: Map<string, number> | undefined;
  private readonly rejoinInterval: number;
  /** Optional observer of every log line (tests print them when debugging). */
  onLog: ((time: number, node: string, effect: Extract<SwimEffect, { type: 'log' }>) => void) | undefined;

  constructor(options: MemoryNetworkOptions) {
    this.random = new Random(seedRng(options.seed));
    this.config = options.config ?? FAST_CONFIG;
    this.link = { ...DEFAULT_LINK, ...options.link };
    this.rejoinInterval = options.rejoinInterval ?? 0;
  }

  /** Starts a node (its address is 10.0.x.y:7946 by creation order) and joins it to `join` by name. */
  addNode(name: string, options: { join?: readonly string[]; meta?: Uint8Array; cpuCost?: number } = {}): void {
    if (this.nodes.has(name)) throw new Error(`node ${name} exists`);
    const index = this.nodes.size + 1;
    const addr = Uint8Array.of(10, 0, (index >> 8) & 0xff, index & 0xff);
    const node: SimNode = {
      name,
      index,
      addr,
      state: undefined,
      epoch: 0,
      tickAt: Number.POSITIVE_INFINITY,
      busyUntil: 0,
      cpuCost: options.cpuCost ?? 0,
      busyTime: 0,
      maxQueueDelay: 0,
      ...(options.meta ? { meta: options.meta } : {}),
    };
    this.nodes.set(name, node);
    this.byAddress.set(addressKey(addr, SIM_PORT), node);
    this.boot(node);
    if (options.join && options.join.length > 0) this.join(name, options.join);
    if (this.rejoinInterval > 0) this.scheduleRejoin(node, node.epoch);
  }

  names(): string[] {
    return [...this.nodes.keys()];
  }

  isUp(name: string): boolean {
    return this.nodes.get(name)?.state !== undefined;
  }

  state(name: string): SwimState | undefined {
    return this.nodes.get(name)?.state;
  }

  /** What `name` believes about every member it knows. */
  view(name: string): Map<string, MemberState> {
    const state = this.state(name);
    return new Map([...(state?.members.values() ?? [])].map((m: Member) => [m.name, m.state]));
  }

  addressOf(name: string): PeerAddress {
    const node = this.mustGet(name);
    return { addr: node.addr, port: SIM_PORT };
  }

  join(name: string, targets: readonly string[]): void {
    this.deliver(name, { type: 'join', targets: targets.map((t) => this.addressOf(t)) });
  }

  leave(name: string, timeout: number): void {
    this.deliver(name, { type: 'leave', timeout });
  }

  /** Any event, delivered now (through the node's CPU queue). */
  deliver(name: string, event: SwimEvent): void {
    const node = this.mustGet(name);
    this.schedule(node, node.epoch, this.now, event);
  }

  /** The process dies: no more packets, timers or replies; streams to it are refused. */
  crash(name: string): void {
    const node = this.mustGet(name);
    node.state = undefined;
    node.epoch++;
    node.tickAt = Number.POSITIVE_INFINITY;
  }

  /** A fresh process with the same name and address (incarnation 1 again), joining `join`. */
  restart(name: string, options: { join?: readonly string[]; seed?: number } = {}): void {
    const node = this.mustGet(name);
    node.epoch++;
    node.tickAt = Number.POSITIVE_INFINITY;
    node.busyUntil = this.now;
    this.boot(node, options.seed);
    if (options.join && options.join.length > 0) this.join(name, options.join);
    if (this.rejoinInterval > 0) this.scheduleRejoin(node, node.epoch);
  }

  /** The CPU load of a node since it was added: busy fraction and the longest wait of an event. */
  cpuLoad(name: string): { utilization: number; maxQueueDelay: number } {
    const node = this.mustGet(name);
    return { utilization: this.now > 0 ? node.busyTime / this.now : 0, maxQueueDelay: node.maxQueueDelay };
  }

  setCpuCost(name: string, cpuCost: number): void {
    this.mustGet(name).cpuCost = cpuCost;
  }

  /** Default conditions for every link without an override. */
  setLink(conditions: Partial<LinkConditions>): void {
    Object.assign(this.link, conditions);
  }

  /** Conditions of the one-way link from -> to. */
  setLinkBetween(from: string, to: string, conditions: Partial<LinkConditions>): void {
    this.linkOverrides.set(`${from}>${to}`, { ...this.link, ...this.linkOverrides.get(`${from}>${to}`), ...conditions });
  }

  /** Nodes in different groups cannot reach each other; nodes in no group reach nobody. */
  partition(...groups: readonly (readonly string[])[]): void {
    this.groups = new Map();
    groups.forEach((group, i) => group.forEach((name) => this.groups!.set(name, i)));
  }

  heal(): void {
    this.groups = undefined;
  }

  /** Runs the clock forward by `ms`. */
  runFor(ms: number): void {
    this.runUntilTime(this.now + ms);
  }

  runUntilTime(end: number): void {
    while (this.queue.size > 0 && this.queue.peekTime() <= end) {
      const item = this.queue.pop()!;
      this.now = item.time;
      item.run();
    }
    this.now = end;
  }

  /**
   * Runs until `done()` holds (checked whenever the clock moves) or `limit` ms pass. Returns the virtual time
   * when it first held, or undefined.
   */
  runUntil(done: () => boolean, limit: number): number | undefined {
    const end = this.now + limit;
    if (done()) return this.now;
    while (this.queue.size > 0 && this.queue.peekTime() <= end) {
      const time = this.queue.peekTime();
      while (this.queue.size > 0 && this.queue.peekTime() === time) {
        const item = this.queue.pop()!;
        this.now = item.time;
        item.run();
      }
      if (done()) return this.now;
    }
    this.now = end;
    return done() ? this.now : undefined;
  }

  /** Every live node among `observers` sees each of `expected` in the given state. */
  allSee(expected: Readonly<Record<string, MemberState | undefined>>, observers: readonly string[] = this.names()): boolean {
    return observers.every((o) => {
      if (!this.isUp(o)) return true;
      const view = this.view(o);
      return Object.entries(expected).every(([name, state]) => view.get(name) === state);
    });
  }

  /** Every live node sees every live node alive (and nothing else alive). */
  converged(): boolean {
    const up = this.names().filter((n) => this.isUp(n));
    return up.every((o) => {
      const view = this.view(o);
      return up.every((n) => view.get(n) === 'alive');
    });
  }

  count(reason: LogReason): number {
    return this.logCounts.get(reason) ?? 0;
  }

  private mustGet(name: string): SimNode {
    const node = this.nodes.get(name);
    if (!node) throw new Error(`no node ${name}`);
    return node;
  }

  private boot(node: SimNode, seed?: number): void {
    const result = createSwimNode({
      name: node.name,
      addr: node.addr,
      port: SIM_PORT,
      config: this.config,
      seed: seed ?? this.random.uint32(),
      now: this.now,
      ...(node.meta ? { meta: node.meta } : {}),
    });
    node.state = result.state;
    this.apply(node, result, this.now);
  }

  private scheduleRejoin(node: SimNode, epoch: number): void {
    this.queue.push(this.now + this.rejoinInterval, () => {
      if (node.epoch !== epoch || !node.state) return;
      const others = this.names().filter((n) => n !== node.name);
      this.join(node.name, others);
      this.scheduleRejoin(node, epoch);
    });
  }

  /** Queues `event` for the node at `time`, behind whatever its CPU is still busy with. */
  private schedule(node: SimNode, epoch: number, time: number, event: SwimEvent): void {
    this.queue.push(time, () => this.process(node, epoch, event));
  }

  private process(node: SimNode, epoch: number, event: SwimEvent, queuedAt = this.now): void {
    if (node.epoch !== epoch || !node.state) return;
    if (node.cpuCost > 0 && node.busyUntil > this.now) {
      this.queue.push(node.busyUntil, () => this.process(node, epoch, event, queuedAt));
      return;
    }
    node.busyTime += node.cpuCost;
    node.maxQueueDelay = Math.max(node.maxQueueDelay, this.now - queuedAt);
    const result = step(node.state, event, this.now);
    node.state = result.state;
    const doneAt = this.now + node.cpuCost;
    node.busyUntil = doneAt;
    this.apply(node, result, doneAt);
  }

  private apply(node: SimNode, result: StepResult, at: number): void {
    for (const effect of result.effects) this.perform(node, effect, at);
    const deadline = Math.max(result.nextDeadline, at);
    if (deadline !== node.tickAt && Number.isFinite(deadline)) {
      node.tickAt = deadline;
      const epoch = node.epoch;
      this.queue.push(deadline, () => {
        if (node.tickAt !== deadline) return;
        node.tickAt = Number.POSITIVE_INFINITY;
        this.process(node, epoch, { type: 'tick' });
      });
    }
  }

  private linkFor(from: string, to: string): LinkConditions {
    return this.linkOverrides.get(`${from}>${to}`) ?? this.link;
  }

  private reachable(from: string, to: string): boolean {
    if (!this.groups) return true;
    const a = this.groups.get(from);
    const b = this.groups.get(to);
    return a !== undefined && a === b;
  }

  private delay(link: LinkConditions): number {
    return link.latency + (link.jitter > 0 ? (this.random.int(1_000_000) / 1_000_000) * link.jitter : 0);
  }

  /** A TCP segment's delivery delay including retransmissions, or undefined when it gives up. */
  private segmentDelay(link: LinkConditions, retransmit: number): number | undefined {
    let total = 0;
    for (let i = 0; i < MAX_SEGMENT_TRIES; i++) {
      if (link.loss <= 0 || this.random.int(1_000_000) >= link.loss * 1_000_000) return total + this.delay(link);
      total += retransmit * 2 ** i;
    }
    return undefined;
  }

  private perform(node: SimNode, effect: SwimEffect, at: number): void {
    switch (effect.type) {
      case 'sendPacket':
        return this.sendPacket(node, effect.to, effect.messages, at);
      case 'openStream':
        return this.openStream(node, effect.stream, effect.to, effect.message, at);
      case 'replyStream':
        return this.replyStream(effect.stream, effect.message, at);
      case 'emit':
        this.events.push({ time: at, node: node.name, event: effect.event });
        return;
      case 'log':
        this.logCounts.set(effect.reason, (this.logCounts.get(effect.reason) ?? 0) + 1);
        this.onLog?.(at, node.name, effect);
        return;
    }
  }

  private sendPacket(from: SimNode, to: PeerAddress, messages: readonly GossipMessage[], at: number): void {
    this.packetsSent++;
    const target = this.byAddress.get(addressKey(to.addr, to.port));
    if (!target || !this.reachable(from.name, target.name)) return;
    const link = this.linkFor(from.name, target.name);
    if (link.loss > 0 && this.random.int(1_000_000) < link.loss * 1_000_000) {
      this.packetsLost++;
      return;
    }
    const source: PeerAddress = { addr: from.addr, port: SIM_PORT };
    this.schedule(target, target.epoch, at + this.delay(link), { type: 'packet', from: source, messages });
  }

  private openStream(from: SimNode, stream: number, to: PeerAddress, message: GossipMessage, at: number): void {
    const target = this.byAddress.get(addressKey(to.addr, to.port));
    const fromEpoch = from.epoch;
    const fail = (when: number, error: string): void => this.schedule(from, fromEpoch, when, { type: 'streamFailed', stream, error });
    if (!target || !this.reachable(from.name, target.name)) return; // silence: the initiator's deadline fires
    const out = this.linkFor(from.name, target.name);
    const back = this.linkFor(target.name, from.name);
    const syn = this.segmentDelay(out, SYN_RETRANSMIT_MS);
    if (syn === undefined) return;
    if (!target.state) return fail(at + syn + this.delay(back), 'connection refused');
    const synAck = this.segmentDelay(back, SYN_RETRANSMIT_MS);
    const request = this.segmentDelay(out, SEGMENT_RETRANSMIT_MS);
    if (synAck === undefined || request === undefined) return;
    const id = this.nextInbound++;
    this.inbound.set(id, { initiator: from.name, initiatorEpoch: fromEpoch, initiatorStream: stream, responder: target.name });
    const source: PeerAddress = { addr: from.addr, port: SIM_PORT };
    const arrival = at + syn + synAck + request;
    this.schedule(target, target.epoch, arrival, { type: 'inboundStream', stream: id, from: source, message });
  }

  private replyStream(id: number, message: GossipMessage | undefined, at: number): void {
    const inbound = this.inbound.get(id);
    if (!inbound) return;
    this.inbound.delete(id);
    const initiator = this.nodes.get(inbound.initiator);
    if (!initiator || !this.reachable(inbound.responder, inbound.initiator)) return;
    const delay = this.segmentDelay(this.linkFor(inbound.responder, inbound.initiator), SEGMENT_RETRANSMIT_MS);
    if (delay === undefined) return;
    const event: SwimEvent = message
      ? { type: 'streamReply', stream: inbound.initiatorStream, message }
      : { type: 'streamFailed', stream: inbound.initiatorStream, error: 'closed without reply' };
    this.schedule(initiator, inbound.initiatorEpoch, at + delay, event);
  }
}
