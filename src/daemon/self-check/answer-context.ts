/**
 * What the speaker knows that makes another MAC's answer expected (expected-answer.ts), kept between
 * recomputations: from whom this node took each IP and when (the owner changes), when each member last joined,
 * left or changed its facts, and which member publishes which MAC. facts() reads them with the current members
 * and election into AnswerFacts for one answer.
 */
import { decodeNodeMeta } from '../../gossip/node-meta';
import type { Member } from '../../gossip/swim';
import { rankNodes } from '../../election/hash-order';
import type { ElectionOutcome } from '../../election';
import { formatIP, type IP } from '../../ip';
import type { OwnerChange } from '../owner-history';
import { EXPECTED_ANSWER_WINDOW_MS, type AnswerFacts } from './expected-answer';

/** MAC (lowercase) -> member, from the MACs each member publishes in its meta (node-facts.ts). */
export function macOwnersOf(members: readonly Pick<Member, 'name' | 'meta'>[]): ReadonlyMap<string, string> {
  return new Map(members.flatMap((m) => (decodeNodeMeta(m.meta)?.macs ?? []).map((mac) => [mac, m.name] as [string, string])));
}

/**
 * The member whose facts publish `mac` among `members`: for a MAC the last election's members did not know (a
 * member that joined while that decision was computed). A scan, only for MACs not otherwise known.
 */
function publisherOf(mac: string, members: readonly Pick<Member, 'name' | 'meta'>[]): string | undefined {
  return members.find((m) => decodeNodeMeta(m.meta)?.macs?.includes(mac))?.name;
}

/**
 * MACs of members gossip no longer lists (reaped after it declared them dead), remembered so a node that comes back
 * is still known by its MAC: layer 2 heals before gossip, and its answer is heard before its rejoin. One entry per
 * departed member's MAC; the oldest makes room beyond this (a cluster that lost this many has other problems).
 */
const FORMER_MACS_MAX = 1024;

export class AnswerContext {
  /** MAC -> member, of members no longer listed (oldest first). */
  private readonly former = new Map<string, string>();
  /** Per IP this node took (layer2): from whom and when. */
  private readonly takeovers = new Map<string, { from: readonly string[]; at: number }>();
  /** When each member last joined, left, failed or changed its facts, as heard here. */
  private readonly changedAt = new Map<string, number>();
  private owners: ReadonlyMap<string, string> = new Map();
  /** The layer 2 outcome of each IP, for the election whose outcomes it was built from (built at its first use). */
  private outcomeIndex: { readonly of: readonly ElectionOutcome[]; readonly byIp: ReadonlyMap<string, ElectionOutcome> } | undefined;

  constructor(private readonly self: string) {}

  /** MAC (lowercase) -> member, from the members' facts as of the last election. */
  get macOwners(): ReadonlyMap<string, string> {
    return this.former.size === 0 ? this.owners : new Map([...this.former, ...this.owners]);
  }

  memberChanged(name: string, now: number): void {
    if (name !== this.self) this.changedAt.set(name, now);
  }

  /** After each election: the owner changes it made and the members it saw. */
  elected(changes: readonly OwnerChange[], members: readonly Member[], now: number): void {
    for (const change of changes) {
      if (change.protocol !== 'layer2') continue;
      for (const ip of change.ips) {
        if (change.to.includes(this.self)) this.takeovers.set(ip, { from: change.from, at: now });
        else this.takeovers.delete(ip);
      }
    }
    const current = macOwnersOf(members);
    for (const [mac, name] of this.owners) if (!current.has(mac)) this.former.set(mac, name);
    for (const mac of current.keys()) this.former.delete(mac);
    for (const mac of this.former.keys()) {
      if (this.former.size <= FORMER_MACS_MAX) break;
      this.former.delete(mac);
    }
    this.owners = current;
    // Forgotten by age, not by this election's members: a decision is computed over several turns and may have
    // read its members before a join it is applied after, and the joiner's change must still excuse its answers.
    for (const [name, at] of this.changedAt) if (now - at > EXPECTED_ANSWER_WINDOW_MS) this.changedAt.delete(name);
  }

  /**
   * The member behind `mac`, whether it drains or just changed, whether it held `ip` before us, who ranks ahead
   * of us for the IP in MetalLB's hash order over every known member, and whom our election now gives it.
   */
  facts(ip: IP, mac: string, members: readonly Member[], outcomes: readonly ElectionOutcome[]): AnswerFacts {
    const ipText = formatIP(ip);
    const member = this.owners.get(mac) ?? this.former.get(mac) ?? publisherOf(mac, members);
    const listed = members.find((m) => m.name === member);
    const meta = listed?.meta;
    const outcome = this.layer2OutcomeOf(ipText, outcomes);
    const hashed = outcome?.ips[0];
    const order =
      hashed === undefined
        ? []
        : rankNodes(
            members.map((m) => m.name),
            hashed,
          );
    const selfAt = order.indexOf(this.self);
    return {
      member,
      memberDraining: (meta !== undefined && decodeNodeMeta(meta)?.draining) || false,
      memberChangedAt: member === undefined ? undefined : this.changedAt.get(member),
      // Dead, left or reaped in our view yet answering: it is coming back (its link or gossip was cut).
      memberAway: member !== undefined && (listed === undefined || listed.state === 'dead' || listed.state === 'left'),
      takeover: this.takeovers.get(ipText),
      rankedAhead: selfAt < 0 ? [] : order.slice(0, selfAt),
      ...(outcome?.winner && outcome.winner !== this.self ? { electedOwner: outcome.winner } : {}),
    };
  }

  /**
   * The first layer 2 outcome listing `ipText`, looked up: a handover brings one sighting per IP handed over, and
   * a search of every outcome for each made it quadratic (10,000 services, 3,000 IPs moving).
   */
  private layer2OutcomeOf(ipText: string, outcomes: readonly ElectionOutcome[]): ElectionOutcome | undefined {
    if (this.outcomeIndex?.of !== outcomes) {
      const byIp = new Map<string, ElectionOutcome>();
      for (const o of outcomes) if (o.protocol === 'layer2') for (const ip of o.ips) if (!byIp.has(ip)) byIp.set(ip, o);
      this.outcomeIndex = { of: outcomes, byIp };
    }
    return this.outcomeIndex.byIp.get(ipText);
  }
}
