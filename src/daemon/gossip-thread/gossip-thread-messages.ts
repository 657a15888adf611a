/**
 * What the daemon's main thread and its gossip thread say to each other (threaded-gossip.ts, gossip-thread.ts):
 * commands one way; events, replies, log lines and the membership view the other. Plain data only: every message
 * crosses the thread boundary as a structured clone.
 */
import type { GossipCounters } from '../../gossip/gossip-stats';
import type { GossipNodeEvents, JoinResult } from '../../gossip/gossip-node';
import type { LeaveOutcome, Member, SwimConfig } from '../../gossip/swim';
import type { HostPort } from '../../gossip/transport/address';
import type { GOSSIP_THREAD_ROLE } from './gossip-thread-role';

/** The gossip node's options as they cross: the keyring as its keys, no runtime (the thread has the real one). */
export interface GossipThreadOptions {
  readonly name: string;
  readonly bind: HostPort;
  readonly advertiseHost?: string;
  readonly config?: SwimConfig;
  /** The keyring's keys, primary first. */
  readonly keys?: readonly Uint8Array[];
  readonly meta?: Uint8Array;
}

export interface GossipThreadInput {
  readonly role: typeof GOSSIP_THREAD_ROLE;
  /** Absent for a thread started ahead (WarmGossipThread): the options come as its first message, `start`. */
  readonly options?: GossipThreadOptions;
  /** Whether to send debug lines (each crosses the thread boundary: only when the daemon's log shows them). */
  readonly debug: boolean;
}

export type ToGossipThread =
  /** The first message to a thread started ahead: the node's options, known once the configuration is read. */
  | { readonly op: 'start'; readonly options: GossipThreadOptions; readonly debug: boolean }
  | { readonly op: 'join'; readonly id: number; readonly addresses: readonly HostPort[] }
  | { readonly op: 'leave'; readonly id: number; readonly timeoutMs: number }
  | { readonly op: 'setMeta'; readonly meta: Uint8Array }
  | { readonly op: 'broadcast'; readonly payload: Uint8Array; readonly key?: string }
  | { readonly op: 'setLocalState'; readonly userState: Uint8Array }
  | { readonly op: 'close'; readonly id: number };

/** The node's membership as the main thread reads it between messages (a mirror, refreshed with each). */
export interface GossipView {
  /**
   * Absent when no member changed since the last view (members are immutable: a change is a new object): a view
   * goes out every 100 ms, and cloning 1,000 unchanged members each time would be most of an idle daemon's work.
   */
  readonly members?: readonly Member[];
  readonly live?: readonly Member[];
  readonly confirmedSuspects: readonly (readonly [string, number])[];
  readonly lastHeard: readonly (readonly [string, number])[];
  readonly health: number;
  readonly counters: GossipCounters;
}

/** One of the node's events, as emitted (GossipNodeEvents), by name and arguments. */
export type GossipThreadEvent = {
  [K in keyof GossipNodeEvents]: { readonly name: K; readonly args: GossipNodeEvents[K] };
}[keyof GossipNodeEvents];

export type FromGossipThread =
  | { readonly kind: 'ready'; readonly localAddress: HostPort; readonly view: GossipView }
  | { readonly kind: 'failed'; readonly message: string; readonly code?: string }
  | { readonly kind: 'event'; readonly event: GossipThreadEvent; readonly view: GossipView }
  | { readonly kind: 'view'; readonly view: GossipView }
  | { readonly kind: 'joined'; readonly id: number; readonly result: JoinResult }
  | { readonly kind: 'left'; readonly id: number; readonly outcome: LeaveOutcome }
  | { readonly kind: 'closed'; readonly id: number }
  | { readonly kind: 'log'; readonly level: 'debug' | 'info' | 'warn' | 'error'; readonly fields: object; readonly msg?: string };
