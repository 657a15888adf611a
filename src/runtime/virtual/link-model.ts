/**
 * What the wire does between two hosts of a VirtualNetwork: one-way latency plus jitter, loss, partitions. The
 * conditions and TCP's retransmission delays are the reducer-level memory network's (src/gossip/swim), so a test
 * on bytes and a test on reducers see the same links. Every random draw comes from one seeded PRNG, in the order
 * the clock runs tasks, so a run is reproducible.
 */
import { Random, seedRng } from '../../gossip/swim/random';
import {
  DEFAULT_LINK,
  MAX_SEGMENT_TRIES,
  SEGMENT_RETRANSMIT_MS,
  SYN_RETRANSMIT_MS,
  type LinkConditions,
} from '../../gossip/swim/memory-network';

export { DEFAULT_LINK, MAX_SEGMENT_TRIES, SEGMENT_RETRANSMIT_MS, SYN_RETRANSMIT_MS, type LinkConditions };

/** A host talking to itself goes through loopback: no delay, no loss, no partition. */
const LOOPBACK: LinkConditions = Object.freeze({ latency: 0, jitter: 0, loss: 0 });

/** Loss and jitter are drawn at this resolution (one in a million), as the memory network draws them. */
const DRAW_RESOLUTION = 1_000_000;

export class LinkModel {
  private readonly random: Random;
  private readonly defaults: LinkConditions;
  private readonly overrides = new Map<string, LinkConditions>();
  private groups: Map<string, number> | undefined;

  constructor(seed: number, link: Partial<LinkConditions> = {}) {
    this.random = new Random(seedRng(seed));
    this.defaults = { ...DEFAULT_LINK, ...link };
  }

  /** A seed for something else that needs its own stream (a host's randomness), drawn from this one. */
  nextSeed(): number {
    return this.random.uint32();
  }

  /** Default conditions of every link without its own. */
  setLink(conditions: Partial<LinkConditions>): void {
    Object.assign(this.defaults, conditions);
  }

  /** Conditions of the one-way link from -> to (host names). */
  setLinkBetween(from: string, to: string, conditions: Partial<LinkConditions>): void {
    const key = `${from}>${to}`;
    this.overrides.set(key, { ...this.defaults, ...this.overrides.get(key), ...conditions });
  }

  /** Hosts in different groups cannot reach each other; a host in no group reaches nobody but itself. */
  partition(groups: readonly (readonly string[])[]): void {
    this.groups = new Map();
    groups.forEach((group, i) => group.forEach((name) => this.groups!.set(name, i)));
  }

  heal(): void {
    this.groups = undefined;
  }

  reachable(from: string, to: string): boolean {
    if (!this.groups || from === to) return true;
    const a = this.groups.get(from);
    return a !== undefined && a === this.groups.get(to);
  }

  /** Whether one packet (or one try of a segment) from -> to is lost. */
  lost(from: string, to: string): boolean {
    const { loss } = this.conditions(from, to);
    return loss > 0 && this.random.int(DRAW_RESOLUTION) < loss * DRAW_RESOLUTION;
  }

  /** One-way delay of one packet from -> to: latency plus uniform jitter. */
  delay(from: string, to: string): number {
    const { latency, jitter } = this.conditions(from, to);
    return latency + (jitter > 0 ? (this.random.int(DRAW_RESOLUTION) / DRAW_RESOLUTION) * jitter : 0);
  }

  /**
   * When a TCP segment's try number `attempt` (0-based) that was lost is sent again: Linux doubles the RTO each
   * time, from 1 s for a SYN and 200 ms (the minimum RTO) for data. Undefined once TCP gives up.
   */
  retransmitAfter(attempt: number, syn: boolean): number | undefined {
    if (attempt + 1 >= MAX_SEGMENT_TRIES) return undefined;
    return (syn ? SYN_RETRANSMIT_MS : SEGMENT_RETRANSMIT_MS) * 2 ** attempt;
  }

  private conditions(from: string, to: string): LinkConditions {
    if (from === to) return LOOPBACK;
    return this.overrides.get(`${from}>${to}`) ?? this.defaults;
  }
}
