/**
 * The full (non-incremental) judgement of one election unit: every node's reason and the eligible nodes in
 * MetalLB's hash order. This is the reference the incremental index is tested against.
 */
import type { ElectionContext, ElectionUnit } from './election-context';
import type { LiveMembers } from './election-input';
import { deferByPreference } from './deferral';
import { rankNodes } from './hash-order';
import { type NodeReason, ReasonCode, reasonOfCode } from './reasons';

export interface UnitVerdict {
  readonly unit: ElectionUnit;
  /** Eligible nodes in hash order (sha256(node + "#" + first IP) ascending). */
  readonly eligible: readonly string[];
  /** Every other known node, sorted by name, with why it is out. */
  readonly ineligible: readonly NodeReason[];
}

export function isLive(live: LiveMembers, node: string): boolean {
  return live === undefined || live.has(node);
}

/** Names sorted by UTF-16 code units: deterministic, and the order `mlb explain` lists ineligible nodes in. */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Live members no Node object describes: listed as unknownNode so a misnamed speaker is visible. */
export function unknownLiveMembers(ctx: ElectionContext, live: LiveMembers): string[] {
  if (!live) return [];
  const out: string[] = [];
  for (const name of live) if (!ctx.nodeIds.has(name)) out.push(name);
  return out;
}

export function judgeUnit(ctx: ElectionContext, unit: ElectionUnit, live: LiveMembers): UnitVerdict {
  const eligible: string[] = [];
  const ineligible: NodeReason[] = [];
  for (let id = 0; id < ctx.nodeNames.length; id++) {
    const node = ctx.nodeNames[id] as string;
    const code = ctx.nodeCode(unit, id, isLive(live, node));
    if (code === ReasonCode.eligible) eligible.push(node);
    else ineligible.push({ node, reason: reasonOfCode(code) });
  }
  for (const node of unknownLiveMembers(ctx, live)) {
    ineligible.push({ node, reason: reasonOfCode(ctx.unknownMemberCode(unit, node)) });
  }
  const preferred = deferByPreference(eligible, ctx.config.mlb);
  ineligible.push(...preferred.deferred);
  ineligible.sort((a, b) => compareNames(a.node, b.node));
  return { unit, eligible: rankNodes(preferred.eligible, unit.hashText), ineligible };
}
