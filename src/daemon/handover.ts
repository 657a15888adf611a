/**
 * A graceful move (SIGTERM): the leaving node marks itself draining, so every node's election hands its IPs to the
 * next node in hash order, and keeps answering until it has heard the new owner announce each IP (its gratuitous
 * ARP or unsolicited Neighbor Advertisement arrives as "another MAC claims this address"). Clients therefore never
 * see a gap: the new owner announces while the old one still answers, as a tcpdump of a MetalLB v0.16 speaker's
 * clean shutdown shows (the new owner's gratuitous ARP 0.3 s later, no client request lost). Pure: the speaker
 * feeds it the election and the sightings.
 */

/**
 * How long a leaving node waits for its successors at most. The new owner needs one gossip round to hear of the
 * drain (a broadcast, ~200 ms with the fast profile) and announces at once; 3 s also covers memberlist's LAN
 * timers and a lost broadcast recovered by the next push/pull, without holding up a systemd stop for long.
 */
export const HANDOVER_TIMEOUT_MS = 3_000;

export interface HandoverInputs {
  /** IP texts this node announced when the handover began. */
  readonly held: readonly string[];
  /** The election's owner of each IP now that this node drains (null: no one; this node: no successor). */
  readonly ownerOf: (ip: string) => string | null;
  /** IP texts another MAC has announced since the handover began. */
  readonly claimed: ReadonlySet<string>;
  readonly self: string;
  readonly startedAt: number;
  readonly now: number;
}

export interface HandoverStatus {
  readonly done: boolean;
  /** IPs still waiting for their new owner's announcement, with that owner. */
  readonly waiting: readonly { readonly ip: string; readonly successor: string }[];
  /** IPs without a successor: they go down with this node. */
  readonly orphaned: readonly string[];
  readonly reason: 'allClaimed' | 'timedOut' | 'waiting';
}

export function handoverStatus(inputs: HandoverInputs): HandoverStatus {
  const waiting: { ip: string; successor: string }[] = [];
  const orphaned: string[] = [];
  for (const ip of inputs.held) {
    const owner = inputs.ownerOf(ip);
    if (owner === null || owner === inputs.self) orphaned.push(ip);
    else if (!inputs.claimed.has(ip)) waiting.push({ ip, successor: owner });
  }
  if (waiting.length === 0) return { done: true, waiting, orphaned, reason: 'allClaimed' };
  if (inputs.now - inputs.startedAt >= HANDOVER_TIMEOUT_MS) return { done: true, waiting, orphaned, reason: 'timedOut' };
  return { done: false, waiting, orphaned, reason: 'waiting' };
}

/**
 * Each layer-2 IP text -> the election's winner for it, in one pass over the outcomes. The handover asks for the
 * owner of every held IP on every check: a scan of the outcomes per IP made that 10,000 x 10,000 comparisons per
 * check with 10,000 VIPs, seconds of a stop spent before any IP was let go.
 */
export function layer2Owners(
  outcomes: readonly { protocol: string; ips: readonly string[]; winner: string | null }[],
): ReadonlyMap<string, string | null> {
  const owners = new Map<string, string | null>();
  for (const o of outcomes) if (o.protocol === 'layer2') for (const ip of o.ips) if (!owners.has(ip)) owners.set(ip, o.winner);
  return owners;
}
