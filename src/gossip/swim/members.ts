import { isDeadOrLeft, type Member } from './member-table';
import type { SwimState } from './state';

/** Members neither dead nor left, ourselves included: MetalLB's usable speakers are alive or suspect ones. */
export function liveMembers(state: SwimState): Member[] {
  return [...state.members.values()].filter((m) => !isDeadOrLeft(m));
}
