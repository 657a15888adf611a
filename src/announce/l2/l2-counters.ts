/**
 * What the L2 announcer counts: requests and replies per IP under MetalLB's metric names
 * (metallb_layer2_requests_received{ip}, metallb_layer2_responses_sent{ip}, metallb_layer2_gratuitous_sent{ip}),
 * drops by reason, and the failures an operator needs to see. Frames answered by the addon's ARP fast path are
 * counted in C++ and folded in here, so the metrics stay exact whichever path answered.
 */
import type { ArpAnswerTimes } from './arp-answer-times';
import type { L2DropReason } from './drop-reasons';

export interface L2Metric {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** The addon's cumulative counts for one owned IPv4 address (uint32). */
export interface FastPathCount {
  readonly ip: number;
  readonly requests: number;
  readonly replies: number;
  readonly sendFailures: number;
}

export class L2Counters {
  readonly requestsReceived = new Map<string, number>();
  readonly responsesSent = new Map<string, number>();
  readonly gratuitousSent = new Map<string, number>();
  readonly drops = new Map<L2DropReason, number>();
  readonly socketErrors = new Map<string, number>();
  /** Replies or announcements the kernel refused (queue full, link down, socket missing). */
  sendFailures = 0;
  /** Frames whose handling threw (should stay 0: the responder never throws). */
  handlerErrors = 0;
  /** Another MAC claimed an address we announce. */
  conflicts = 0;
  /** The addon's answer thread's times, summed over sockets (arp-answer-times.ts); undefined until it answers. */
  answerTimes: ArpAnswerTimes | undefined;

  /**
   * Adds what the addon counted since `seen` (the counts already folded in for one socket, updated here).
   * `keyOf` turns the addon's uint32 address into the IP text the maps are keyed by.
   */
  foldFastPath(counts: readonly FastPathCount[], seen: Map<number, FastPathCount>, keyOf: (ip: number) => string): void {
    for (const count of counts) {
      const before = seen.get(count.ip) ?? { ip: count.ip, requests: 0, replies: 0, sendFailures: 0 };
      const key = keyOf(count.ip);
      add(this.requestsReceived, key, count.requests - before.requests);
      add(this.responsesSent, key, count.replies - before.replies);
      this.sendFailures += Math.max(0, count.sendFailures - before.sendFailures);
      seen.set(count.ip, { ...count });
    }
  }

  /** The per-IP counters under MetalLB's metric names, sorted by IP. */
  metrics(): L2Metric[] {
    const out: L2Metric[] = [];
    const push = (name: string, m: Map<string, number>) => {
      for (const [ip, value] of [...m].sort()) out.push({ name, labels: { ip }, value });
    };
    push('metallb_layer2_requests_received', this.requestsReceived);
    push('metallb_layer2_responses_sent', this.responsesSent);
    push('metallb_layer2_gratuitous_sent', this.gratuitousSent);
    return out;
  }
}

export function increment<K>(map: Map<K, number>, key: K): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

function add<K>(map: Map<K, number>, key: K, n: number): void {
  if (n > 0) map.set(key, (map.get(key) ?? 0) + n);
}
