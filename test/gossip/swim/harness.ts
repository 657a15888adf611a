import {
  createSwimNode,
  LAN_CONFIG,
  step,
  type OpenStream,
  type PeerAddress,
  type SendPacket,
  type StepResult,
  type SwimConfig,
  type SwimEffect,
  type SwimEvent,
  type SwimOutEvent,
  type LogReason,
} from '../../../src/gossip/swim';
import { DEFAULT_VSN, type Alive, type GossipMessage } from '../../../src/gossip/messages';

/** Helpers for driving one reducer by hand. Node i lives at 10.0.0.i:7946. */
export const PORT = 7946;
export const ip = (i: number): Uint8Array => Uint8Array.of(10, 0, 0, i);
export const addr = (i: number, name?: string): PeerAddress => ({ addr: ip(i), port: PORT, ...(name ? { name } : {}) });

export function alive(name: string, i: number, incarnation: number, meta?: Uint8Array, vsn = DEFAULT_VSN): Alive {
  return { type: 'alive', node: name, addr: ip(i), port: PORT, incarnation, vsn: Uint8Array.from(vsn), ...(meta ? { meta } : {}) };
}

export function start(config: SwimConfig = LAN_CONFIG, options: { name?: string; seed?: number; meta?: Uint8Array } = {}): StepResult {
  return createSwimNode({
    name: options.name ?? 'me',
    addr: ip(1),
    port: PORT,
    config,
    seed: options.seed ?? 7,
    now: 0,
    ...(options.meta ? { meta: options.meta } : {}),
  });
}

/** A driven node: keeps the latest state and time, returns each step's effects. */
export class Driver {
  result: StepResult;
  now = 0;

  constructor(config: SwimConfig = LAN_CONFIG, options: { name?: string; seed?: number; meta?: Uint8Array } = {}) {
    this.result = start(config, options);
  }

  get state() {
    return this.result.state;
  }

  send(event: SwimEvent, at = this.now): readonly SwimEffect[] {
    this.now = at;
    this.result = step(this.result.state, event, at);
    return this.result.effects;
  }

  packet(from: number, ...messages: GossipMessage[]): readonly SwimEffect[] {
    return this.send({ type: 'packet', from: addr(from), messages });
  }

  /** Ticks at each deadline up to `until`, collecting every effect. */
  advance(until: number): SwimEffect[] {
    const all: SwimEffect[] = [];
    for (;;) {
      const next = this.result.nextDeadline;
      if (next > until) break;
      all.push(...this.send({ type: 'tick' }, Math.max(next, this.now)));
    }
    this.now = until;
    return all;
  }

  /** Like advance, but every probe is acked at once (all members healthy). */
  advanceAnswering(until: number): SwimEffect[] {
    const all: SwimEffect[] = [];
    for (;;) {
      const next = this.result.nextDeadline;
      if (next > until) break;
      all.push(...this.send({ type: 'tick' }, Math.max(next, this.now)));
      const probe = this.state.probe;
      if (probe) all.push(...this.send({ type: 'packet', from: probe.to, messages: [{ type: 'ack', seqNo: probe.seqNo }] }));
    }
    this.now = until;
    return all;
  }

  /** Adds members b, c, d... (10.0.0.2, .3, ...) by alive packets. */
  learn(...names: string[]): void {
    names.forEach((name, i) => this.packet(i + 2, alive(name, i + 2, 1)));
  }

  stateOf(name: string) {
    return this.state.members.get(name)?.state;
  }
}

export const packets = (effects: readonly SwimEffect[]): SendPacket[] => effects.filter((e): e is SendPacket => e.type === 'sendPacket');
export const streams = (effects: readonly SwimEffect[]): OpenStream[] => effects.filter((e): e is OpenStream => e.type === 'openStream');
export const emitted = (effects: readonly SwimEffect[]): SwimOutEvent[] => effects.flatMap((e) => (e.type === 'emit' ? [e.event] : []));
export const reasons = (effects: readonly SwimEffect[]): LogReason[] => effects.flatMap((e) => (e.type === 'log' ? [e.reason] : []));
export const messagesOf = <T extends GossipMessage['type']>(effects: readonly SwimEffect[], type: T) =>
  packets(effects).flatMap((p) => p.messages.filter((m): m is Extract<GossipMessage, { type: T }> => m.type === type));
