/**
 * A deterministic two-node world for the BFD reducer: two sessions, a virtual clock, and a wire with a fixed
 * one-way delay that delivers each sent packet (through the real codec, so what crosses is bytes) to the other
 * side unless that direction is cut. Timers are the reducer's own deadlines. Every effect is recorded with its
 * time, so tests assert what a peer would see and when.
 */
import { decodeBfdControl, encodeBfdControl, type BfdControlPacket } from '../../../src/announce/bfd/bfd-packet';
import type { BfdTimerConfig } from '../../../src/announce/bfd/bfd-profile';
import {
  initialBfdSession,
  stepBfdSession,
  type BfdSessionEffect,
  type BfdSessionEvent,
  type BfdSessionState,
} from '../../../src/announce/bfd/bfd-session';

export const DEFAULT_TIMERS: BfdTimerConfig = { desiredMinTxUs: 300_000, requiredMinRxUs: 300_000, detectMult: 3, passive: false };

export interface Recorded {
  readonly at: number;
  readonly node: 'a' | 'b';
  readonly effect: BfdSessionEffect;
}

interface Pending {
  readonly at: number;
  readonly seq: number;
  readonly to: 'a' | 'b';
  readonly bytes: Uint8Array;
}

export class BfdSim {
  now = 0;
  readonly states: Record<'a' | 'b', BfdSessionState>;
  readonly log: Recorded[] = [];
  /** Directions that lose every packet: 'a' cuts a -> b. */
  readonly cut = new Set<'a' | 'b'>();
  /** Nodes that are gone: they process nothing (a crash). */
  readonly dead = new Set<'a' | 'b'>();
  private wire: Pending[] = [];
  private seq = 0;

  constructor(
    a: Partial<BfdTimerConfig> = {},
    b: Partial<BfdTimerConfig> = {},
    readonly delayMs = 1,
    /** The jitter source; 0 means "no jitter" (full intervals). */
    readonly random: () => number = () => 0,
  ) {
    this.states = {
      a: initialBfdSession({ ...DEFAULT_TIMERS, ...a }, 0xa1),
      b: initialBfdSession({ ...DEFAULT_TIMERS, ...b }, 0xb2),
    };
  }

  step(node: 'a' | 'b', event: BfdSessionEvent): void {
    if (this.dead.has(node)) return;
    const result = stepBfdSession(this.states[node], event, { now: this.now, random: this.random });
    this.states[node] = result.state;
    for (const effect of result.effects) {
      this.log.push({ at: this.now, node, effect });
      if (effect.type === 'send' && !this.cut.has(node)) {
        const to = node === 'a' ? 'b' : 'a';
        this.wire.push({ at: this.now + this.delayMs, seq: this.seq++, to, bytes: encodeBfdControl(effect.packet) });
      }
    }
  }

  /** Advances the clock to `until`, firing deadlines and deliveries in time order. */
  runUntil(until: number): void {
    for (;;) {
      const next = this.nextEvent();
      if (!next || next.at > until) break;
      this.now = next.at;
      next.run();
    }
    this.now = until;
  }

  /** Runs until `predicate` holds or `limit` ms pass; returns the time it held. */
  runUntilTrue(predicate: () => boolean, limit: number): number {
    const end = this.now + limit;
    while (!predicate()) {
      const next = this.nextEvent();
      if (!next || next.at > end) throw new Error(`condition not reached within ${limit} ms (now ${this.now})`);
      this.now = next.at;
      next.run();
    }
    return this.now;
  }

  effects(node: 'a' | 'b', type?: BfdSessionEffect['type']): Recorded[] {
    return this.log.filter((r) => r.node === node && (type === undefined || r.effect.type === type));
  }

  sent(node: 'a' | 'b'): { at: number; packet: BfdControlPacket; why: string }[] {
    return this.effects(node, 'send').map((r) => {
      const e = r.effect as Extract<BfdSessionEffect, { type: 'send' }>;
      return { at: r.at, packet: e.packet, why: e.why };
    });
  }

  private nextEvent(): { at: number; run: () => void } | undefined {
    const candidates: { at: number; order: number; run: () => void }[] = [];
    for (const node of ['a', 'b'] as const) {
      if (this.dead.has(node)) continue;
      const s = this.states[node];
      if (s.detectAt !== undefined)
        candidates.push({ at: s.detectAt, order: 0, run: () => this.step(node, { type: 'timer', timer: 'detect' }) });
      if (s.transmitAt !== undefined)
        candidates.push({ at: s.transmitAt, order: 1, run: () => this.step(node, { type: 'timer', timer: 'transmit' }) });
    }
    const packet = this.wire.reduce<Pending | undefined>(
      (best, p) => (!best || p.at < best.at || (p.at === best.at && p.seq < best.seq) ? p : best),
      undefined,
    );
    if (packet) {
      candidates.push({
        at: packet.at,
        order: 2,
        run: () => {
          this.wire = this.wire.filter((p) => p !== packet);
          const decoded = decodeBfdControl(packet.bytes);
          if (!decoded.ok) throw new Error(`the codec refused a packet the reducer sent: ${decoded.reason}`);
          this.step(packet.to, { type: 'receive', packet: decoded.value });
        },
      });
    }
    candidates.sort((x, y) => x.at - y.at || x.order - y.order);
    return candidates[0];
  }
}

/** A packet as a peer would send it, for feeding one reducer by hand. */
export function peerPacket(overrides: Partial<BfdControlPacket> = {}): BfdControlPacket {
  return {
    diag: 0,
    state: 'Down',
    poll: false,
    final: false,
    controlPlaneIndependent: false,
    demand: false,
    multipoint: false,
    detectMult: 3,
    myDiscriminator: 0x77,
    yourDiscriminator: 0,
    desiredMinTxUs: 300_000,
    requiredMinRxUs: 300_000,
    requiredMinEchoRxUs: 0,
    ...overrides,
  };
}
