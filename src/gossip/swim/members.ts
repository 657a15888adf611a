import { isDeadOrLeft, type Member } from './member-table';
import type { SwimState } from './state';

/** Read-only views of a state for the public API (memberlist Members, NumMembers, LocalNode, GetHealthScore). */

/** Members neither dead nor left, ourselves included: MetalLB's usable speakers are alive or suspect ones. */
export function liveMembers(state: SwimState): Member[] {
  return [...state.members.values()].filter((m) => !isDeadOrLeft(m));
}

export function healthScore(state: SwimState): number {
  return state.health;
}
