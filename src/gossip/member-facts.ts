/**
 * What the election may use from the live members (docs/architecture.md, "Compatibility first"): each member's
 * published facts, and whether mlb-only inputs (health, drain, warm-up) may count. They may only while every
 * live member speaks mlb meta: with a plain MetalLB speaker present, every node must compute exactly MetalLB's
 * election, or the mixed cluster could have two owners for one IP.
 */
import { decodeNodeMeta, type NodeMeta } from './node-meta';

export interface MemberView {
  readonly name: string;
  readonly meta?: Uint8Array;
}

export interface MemberFacts {
  /** Live member names. */
  readonly live: readonly string[];
  /** Decoded facts of the members that publish mlb meta. */
  readonly facts: ReadonlyMap<string, NodeMeta>;
  /** Live members without mlb meta: plain MetalLB speakers (or mlb nodes of an incompatible version). */
  readonly plainSpeakers: readonly string[];
  /** True only when no plain speaker is live. */
  readonly mlbOnlyInputsAllowed: boolean;
  /** Why, in one sentence, for logs, status and explain. */
  readonly reason: string;
}

export function memberFacts(liveMembers: readonly MemberView[]): MemberFacts {
  const facts = new Map<string, NodeMeta>();
  const plainSpeakers: string[] = [];
  for (const m of liveMembers) {
    const meta = decodeNodeMeta(m.meta);
    if (meta) facts.set(m.name, meta);
    else plainSpeakers.push(m.name);
  }
  plainSpeakers.sort();
  const allowed = plainSpeakers.length === 0;
  return {
    live: liveMembers.map((m) => m.name).sort(),
    facts,
    plainSpeakers,
    mlbOnlyInputsAllowed: allowed,
    reason: allowed
      ? 'every live member is mlb: health checks, drain and warm-up take part in the election'
      : `plain MetalLB speakers are live (${plainSpeakers.join(', ')}): electing exactly as MetalLB, without health, drain or warm-up`,
  };
}
