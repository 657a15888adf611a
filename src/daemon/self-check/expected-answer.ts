/**
 * Whether another MAC answering (or announcing) an IP this node owns is a split brain, or an answer the cluster
 * expects for a while. A planned move has two MACs answering by design: a leaving node keeps answering until it
 * hears its successor's gratuitous ARP (handover.ts), and a node whose drain, warm-up or health just changed acts
 * on it a gossip round before the others hear of it. Such an answer is expected for a bounded window; the same
 * MAC still answering once its window is over, a MAC no member publishes, or a member the election gives no
 * reason to answer, is a real conflict. Pure: the facts and the clock come in, a verdict with its reason comes
 * out; the SelfChecker remembers first sightings and acts on the verdict.
 */

/**
 * How long a member with a reason may answer beside the owner. The longest planned overlap is a node that comes
 * back (its link was down, or its gossip cut) answering what it held until its next rejoin, every 5 s
 * (REJOIN_INTERVAL_MS, cluster-membership.ts); a leaving node answers at most 3 s (HANDOVER_TIMEOUT_MS,
 * handover.ts). Two seconds more cover one gossip round on a loaded host (memberlist's LAN gossip interval is
 * 200 ms). A split brain between members is therefore reported this long after it is first seen, at most.
 */
export const EXPECTED_ANSWER_WINDOW_MS = 7_000;

/** Why another MAC answering is expected (for now). */
export type ExpectedReason =
  /** The member held the IP until this node took it, within the window: it answers until it hears us. */
  | 'expectedHandover'
  /** The member is draining or leaving (its gossip meta says so): it hands its IPs over. */
  | 'expectedLeaving'
  /** The member ranks ahead of this node for the IP: its drain, warm-up or health may have ended before we heard. */
  | 'expectedSuccessor'
  /** This node's own election gives the IP to the member: this node is the one letting go (a handover). */
  | 'expectedNewOwner'
  /** The member joined, came back or changed its facts within the window: its view may lag or lead ours. */
  | 'expectedConverging';

/** Why another MAC answering is a real conflict. */
export type ConflictReason =
  /** No member publishes the MAC: a machine outside the cluster (the address configured by hand elsewhere). */
  | 'notMember'
  /** A member the election gives no reason to answer: gossip between it and us is cut, or it is misconfigured. */
  | 'noReason'
  /** A member with a reason, still answering after its window ended. */
  | 'windowOver';

export type AnswerReason = ExpectedReason | ConflictReason;

/** What the speaker knows about one answer (ip, mac) from gossip, the election and the owner history. */
export interface AnswerFacts {
  /** The member publishing the MAC in its node facts, undefined when none does. */
  readonly member: string | undefined;
  /** The member's gossip meta says draining (a leaving node is draining too). */
  readonly memberDraining: boolean;
  /** When this node last heard the member join, come back, leave or change its facts (epoch ms). */
  readonly memberChangedAt: number | undefined;
  /** Who held the IP before this node, and when this node took it (undefined: no change we saw). */
  readonly takeover: { readonly from: readonly string[]; readonly at: number } | undefined;
  /** Members ranked ahead of this node for the IP in MetalLB's hash order over every known member. */
  readonly rankedAhead: readonly string[];
  /** The IP's owner in this node's election (undefined: not known, or this node). */
  readonly electedOwner?: string;
  /**
   * Gossip says the member is dead or gone (or no longer lists it), yet it answers: layer 2 came back before its
   * rejoin (every REJOIN_INTERVAL_MS), so it still answers what it held while cut off.
   */
  readonly memberAway?: boolean;
}

export const NO_FACTS: AnswerFacts = {
  member: undefined,
  memberDraining: false,
  memberChangedAt: undefined,
  takeover: undefined,
  rankedAhead: [],
};

export type AnswerVerdict =
  | { readonly expected: true; readonly reason: ExpectedReason; /** Epoch ms: a later answer is judged again. */ readonly until: number }
  | {
      readonly expected: false;
      readonly reason: ConflictReason;
      /** windowOver: the reason that had expired. */ readonly after?: ExpectedReason;
    };

/**
 * The verdict on an answer seen at `now` from a MAC first seen answering this IP at `firstSeen`. Windows run
 * from the event that gave the reason when we know it (the takeover, the member's change), otherwise from the
 * first answer: we cannot know when a member's drain or health changed before gossip tells us.
 */
export function judgeAnswer(facts: AnswerFacts, firstSeen: number, now: number, windowMs = EXPECTED_ANSWER_WINDOW_MS): AnswerVerdict {
  const member = facts.member;
  if (member === undefined) return { expected: false, reason: 'notMember' };
  const reasons: { reason: ExpectedReason; until: number }[] = [];
  if (facts.takeover && facts.takeover.from.includes(member))
    reasons.push({ reason: 'expectedHandover', until: facts.takeover.at + windowMs });
  if (facts.memberDraining) reasons.push({ reason: 'expectedLeaving', until: firstSeen + windowMs });
  if (facts.rankedAhead.includes(member)) reasons.push({ reason: 'expectedSuccessor', until: firstSeen + windowMs });
  if (facts.memberChangedAt !== undefined) reasons.push({ reason: 'expectedConverging', until: facts.memberChangedAt + windowMs });
  // From its first answer: we cannot know when its link came back. A split brain (gossip cut, ARP not) outlasts it.
  if (facts.memberAway) reasons.push({ reason: 'expectedConverging', until: firstSeen + windowMs });
  // For as long as our own election says so: the overlap is ours to end (a leaving node answers until it hears it).
  if (facts.electedOwner === member) reasons.push({ reason: 'expectedNewOwner', until: now + windowMs });
  if (reasons.length === 0) return { expected: false, reason: 'noReason' };
  const latest = reasons.reduce((a, b) => (b.until > a.until ? b : a));
  if (now < latest.until) return { expected: true, reason: latest.reason, until: latest.until };
  return { expected: false, reason: 'windowOver', after: latest.reason };
}

export const ANSWER_REASON_TEXT: Readonly<Record<AnswerReason, string>> = {
  expectedHandover: 'it held the address until this node took it and answers until it hears us (handover)',
  expectedLeaving: 'it is draining or leaving and hands its addresses over',
  expectedSuccessor: 'it ranks ahead of this node for the address and may already be eligible again',
  expectedNewOwner: 'the election gives it the address: this node is handing it over',
  expectedConverging: 'it joined or changed a moment ago and gossip is still converging',
  notMember: 'no cluster member has that MAC: the address is configured on another machine',
  noReason: 'the election gives that node no reason to answer: two nodes each think they own it (split brain: is gossip between them cut?)',
  windowOver: 'it still answers after the window in which that was expected ended (split brain: is gossip between them cut?)',
};
