/**
 * A graceful move as it runs (handover.ts holds its rule): the IPs this node announced when it began to leave,
 * those a successor's MAC has announced since, and the wait until every one has its successor or the time is up.
 */
import type { Logger } from 'pino';
import type { Clock, Scheduler } from '../runtime/runtime';
import { HANDOVER_TIMEOUT_MS, handoverStatus, layer2Owners } from './handover';

/** How often a leaving node re-checks its handover between sightings (the election may change meanwhile). */
const HANDOVER_POLL_MS = 50;
/**
 * When a successor still silent is told directly. The drain travels as a gossip broadcast, retransmitted for a
 * few rounds (well under a second with any profile's gossip interval); a member cut off or losing packets for
 * that long misses it and would learn it only at its next push/pull, after the handover has timed out and its
 * IPs have gone unanswered. A third of the timeout leaves time for the push/pull and its decision.
 */
const HANDOVER_NUDGE_AFTER_MS = 1_000;
/**
 * Successors told directly at most, once each: a push/pull carries this node's whole state (at 10,000 services
 * the allocation table is about 420 KB), and a large cluster spreads one node's IPs over many successors.
 */
const HANDOVER_NUDGE_MAX = 16;
/**
 * Successors' announcements logged one line each (handoverClaimed, info); the rest at debug, counted in
 * handoverDone. A node leaving with 3,300 IPs wrote 3,300 lines, synchronously, while it was letting them go.
 */
const CLAIMS_LOGGED = 20;

export interface HandoverWait {
  readonly runtime: Clock & Scheduler;
  readonly self: string;
  readonly logger: Logger;
  /**
   * A decision started after the handover began has been applied. One under way when it began still makes this
   * node the owner: read as the handover's state, every IP would look orphaned and be let go at once.
   */
  readonly decidedSince: () => boolean;
  /** The last decision's outcomes: who the election now gives each held IP. */
  readonly outcomes: () => readonly { protocol: string; ips: readonly string[]; winner: string | null }[];
  /** Tells these members this node's state directly (a push/pull: memberlist's join to them). */
  readonly tell: (members: readonly string[]) => void;
}

export class LeavingHandover {
  private readonly heldSet: ReadonlySet<string>;
  private readonly claimed = new Set<string>();

  constructor(
    /** IP texts this node announced when the handover began. */
    readonly held: readonly string[],
    readonly startedAt: number,
  ) {
    this.heldSet = new Set(held);
  }

  /** Another MAC announced `ip`: true the first time it is one this node held (its successor has taken it). */
  claim(ip: string): boolean {
    if (!this.heldSet.has(ip) || this.claimed.has(ip)) return false;
    this.claimed.add(ip);
    return true;
  }

  /** The level a claim's line is logged at: the first CLAIMS_LOGGED at info, the rest at debug. */
  claimLogLevel(): 'info' | 'debug' {
    return this.claimed.size <= CLAIMS_LOGGED ? 'info' : 'debug';
  }

  /**
   * The held IPs no successor has announced yet: what this node keeps answering for. One whose successor has
   * been heard is let go at once, not when the last one is: a client that asks again meanwhile would get two
   * answers, and the older MAC, when its answer comes last, sends the connections made with the successor to
   * this node, which resets them.
   */
  unclaimed(): readonly string[] {
    return this.claimed.size === 0 ? this.held : this.held.filter((ip) => !this.claimed.has(ip));
  }

  /** Resolves once every held IP's successor has announced it, or after HANDOVER_TIMEOUT_MS; logs which. */
  async wait(options: HandoverWait): Promise<void> {
    const { runtime, self, logger } = options;
    let told = false;
    for (;;) {
      await new Promise<void>((r) => runtime.after(HANDOVER_POLL_MS, r));
      const elapsed = runtime.now() - this.startedAt;
      if (!options.decidedSince() && elapsed < HANDOVER_TIMEOUT_MS) continue;
      const owners = layer2Owners(options.outcomes());
      const status = handoverStatus({
        held: this.held,
        claimed: this.claimed,
        self,
        startedAt: this.startedAt,
        now: runtime.now(),
        ownerOf: (ip) => owners.get(ip) ?? null,
      });
      if (!status.done) {
        if (!told && elapsed >= HANDOVER_NUDGE_AFTER_MS && status.waiting.length > 0) {
          told = true;
          const silent = [...new Set(status.waiting.map((w) => w.successor))].slice(0, HANDOVER_NUDGE_MAX);
          logger.info(
            { event: 'handoverNudged', successors: silent, waiting: status.waiting.length },
            `${silent.length} successor(s) not heard after ${elapsed} ms: telling them directly`,
          );
          options.tell(silent);
        }
        continue;
      }
      logger.info(
        {
          event: 'handoverDone',
          reason: status.reason,
          claimed: this.claimed.size,
          waiting: status.waiting,
          orphaned: status.orphaned,
          ms: elapsed,
        },
        status.reason === 'allClaimed' ? 'every successor has announced: stopping' : 'handover timed out: stopping anyway',
      );
      return;
    }
  }
}
