import type { NodeStateName, PushNodeState } from '../messages';
import type { PeerAddress } from './address';
import type { Random } from './random';

/**
 * The members table (memberlist state.go nodeState): one record per known node, ourselves included, and the
 * probe order, a list of names walked round robin and reshuffled at every wrap. Records are immutable values;
 * a change replaces the record.
 */
export type MemberState = NodeStateName;

export interface Member {
  readonly name: string;
  /** Raw IP bytes exactly as the node advertises them (4 bytes, or 16). */
  readonly addr: Uint8Array;
  readonly port: number;
  readonly meta?: Uint8Array;
  readonly incarnation: number;
  readonly state: MemberState;
  /** When `state` last changed (ms). -Infinity for a name heard of but never accepted as alive. */
  readonly stateChange: number;
  /** pmin, pmax, pcur, dmin, dmax, dcur. */
  readonly vsn: Uint8Array;
}

export const VSN_PMIN = 0;
export const VSN_PMAX = 1;
export const VSN_PCUR = 2;
export const VSN_DMIN = 3;
export const VSN_DMAX = 4;
export const VSN_DCUR = 5;
/** Protocol versions from which a peer answers TCP pings, sends nacks, checks CRCs (docs/memberlist-wire.md 6). */
export const PROTOCOL_TCP_PING = 3;
export const PROTOCOL_NACK = 4;

export function protocolMax(member: Member): number {
  return member.vsn[VSN_PMAX] ?? 0;
}

export function isDeadOrLeft(member: Member): boolean {
  return member.state === 'dead' || member.state === 'left';
}

export function addressOf(member: Member): PeerAddress {
  return { addr: member.addr, port: member.port, name: member.name };
}

export function toPushNodeState(member: Member): PushNodeState {
  return {
    name: member.name,
    addr: member.addr,
    port: member.port,
    ...(member.meta === undefined ? {} : { meta: member.meta }),
    incarnation: member.incarnation,
    state: member.state,
    vsn: member.vsn,
  };
}

/**
 * Adds a new name at a random position of the probe order (memberlist aliveNode: append, then swap with a
 * random index), so that a new node is not always probed last and the failure detection bound stays low.
 */
export function insertAtRandomPosition(order: string[], name: string, random: Random): void {
  const n = order.length;
  const offset = random.int(n);
  order.push(name);
  if (offset !== n) {
    order[n] = order[offset]!;
    order[offset] = name;
  }
}

/** Whether a dead or left member has been gone longer than gossipToTheDeadTime and may be forgotten. */
function isReapable(member: Member, now: number, gossipToTheDeadTime: number): boolean {
  return isDeadOrLeft(member) && now - member.stateChange > gossipToTheDeadTime;
}

/**
 * At the wrap of the probe order (memberlist resetNodes): forget members gone longer than gossipToTheDeadTime
 * and reshuffle the rest. memberlist 0.2.2 forgets only Dead members (Left ones linger until a restart); newer
 * releases forget both, and so does mlb. Returns the names forgotten.
 */
export function reapAndShuffle(
  members: Map<string, Member>,
  order: string[],
  now: number,
  gossipToTheDeadTime: number,
  selfName: string,
  random: Random,
): string[] {
  const reaped: string[] = [];
  const kept: string[] = [];
  for (const name of order) {
    const member = members.get(name);
    if (member && name !== selfName && isReapable(member, now, gossipToTheDeadTime)) {
      members.delete(name);
      reaped.push(name);
    } else {
      kept.push(name);
    }
  }
  random.shuffle(kept);
  order.length = 0;
  order.push(...kept);
  return reaped;
}
