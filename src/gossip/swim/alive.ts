import { VSN_LENGTH, type Alive } from '../messages';
import { bytesEqual, formatAddress } from './address';
import { broadcast, emit, log, writableProbeOrder, type Draft } from './draft';
import { insertAtRandomPosition, isDeadOrLeft, VSN_PCUR, VSN_PMAX, VSN_PMIN, type Member } from './member-table';
import { refute } from './refute';
import { isConfirmed } from './confirmed-suspects';

/**
 * An alive message, from a packet, a push/pull or ourselves (memberlist state.go aliveNode).
 *
 * - About ourselves while leaving: ignored (a queued alive must not rejoin us).
 * - A Vsn that is not six bytes, or names pmin/pmax 0 or pmin > pmax: ignored (Go crashes on short ones).
 * - A new name: added (as dead, incarnation 0) at a random probe position, then treated like a known one.
 * - A known name at another address/port: accepted only if the member left, or is dead for longer than
 *   DeadNodeReclaimTime; otherwise "conflicting address" and a conflict event.
 * - Otherwise accepted only with a greater incarnation (about us: ignored if older, or equal with the same meta
 *   and Vsn; refuted otherwise). Acceptance cancels any suspicion and re-broadcasts the message.
 * `bootstrap` marks our own announcements (start, meta update): they are accepted, not refuted.
 */
export function aliveNode(d: Draft, a: Alive, bootstrap: boolean): void {
  const isSelf = a.node === d.self.name;
  if (isSelf && d.leaving) {
    log(d, 'debug', 'ignoredWhileLeaving', `ignoring alive about ourselves while leaving`, { incarnation: a.incarnation });
    return;
  }
  const vsnProblem = checkVsn(a.vsn);
  if (vsnProblem) {
    log(d, 'warn', 'badVsn', `ignoring an alive message for '${a.node}' (${formatAddress(a.addr, a.port)}): ${vsnProblem}`);
    return;
  }

  let member = d.members.get(a.node);
  let updatesNode = false;
  if (!member) {
    member = {
      name: a.node,
      addr: a.addr,
      port: a.port,
      ...(a.meta === undefined ? {} : { meta: a.meta }),
      incarnation: 0,
      state: 'dead',
      stateChange: Number.NEGATIVE_INFINITY,
      vsn: a.vsn,
    };
    d.members.set(a.node, member);
    insertAtRandomPosition(writableProbeOrder(d), a.node, d.random);
  } else if (!bytesEqual(member.addr, a.addr) || member.port !== a.port) {
    const reclaim = d.config.deadNodeReclaimTime;
    const canReclaim = reclaim > 0 && d.now - member.stateChange > reclaim;
    if (member.state === 'left' || (member.state === 'dead' && canReclaim)) {
      log(
        d,
        'info',
        'addressUpdated',
        `updating address for ${member.state} node ${a.node} from ` +
          `${formatAddress(member.addr, member.port)} to ${formatAddress(a.addr, a.port)}`,
      );
      updatesNode = true;
    } else {
      log(
        d,
        'error',
        'conflictingAddress',
        `conflicting address for ${a.node}. Mine: ` +
          `${formatAddress(member.addr, member.port)} Theirs: ${formatAddress(a.addr, a.port)} Old state: ${member.state}`,
      );
      emit(d, {
        type: 'conflict',
        existing: member,
        other: { name: a.node, addr: a.addr, port: a.port, ...(a.meta === undefined ? {} : { meta: a.meta }) },
      });
      return;
    }
  }

  if (!isSelf && !updatesNode && a.incarnation <= member.incarnation) {
    log(d, 'debug', 'staleIncarnation', `alive about ${a.node} is not newer`, {
      incarnation: a.incarnation,
      known: member.incarnation,
    });
    return;
  }
  if (isSelf && a.incarnation < member.incarnation) return;

  const refuted = d.suspicions.get(a.node);
  d.suspicions.delete(a.node);
  const old = member;
  // A refuted confirmed suspicion: the member counts in the election again (confirmed-suspects.ts).
  if (refuted && isConfirmed(refuted) && member.state === 'suspect' && d.config.failoverAtConfirmation)
    emit(d, { type: 'suspicion', member, confirmed: false });

  if (isSelf && !bootstrap) {
    // A restart with other meta can meet an alive of ours with the same incarnation: refute unless identical.
    if (a.incarnation === member.incarnation && bytesEqual(a.meta, member.meta) && bytesEqual(a.vsn, member.vsn)) {
      return;
    }
    refute(d, a.incarnation);
    log(d, 'warn', 'refute', `refuting an alive message for '${a.node}' (${formatAddress(a.addr, a.port)})`, {
      incarnation: a.incarnation,
    });
    return;
  }

  broadcast(d, a.node, a);
  const updated: Member = {
    name: a.node,
    addr: a.addr,
    port: a.port,
    ...(a.meta === undefined ? {} : { meta: a.meta }),
    incarnation: a.incarnation,
    state: 'alive',
    stateChange: member.state === 'alive' ? member.stateChange : d.now,
    vsn: a.vsn,
  };
  d.members.set(a.node, updated);
  announce(d, old, updated);
}

function announce(d: Draft, old: Member, updated: Member): void {
  if (isDeadOrLeft(old)) {
    log(d, 'info', 'alive', `${updated.name} is alive`, { incarnation: updated.incarnation, was: old.state });
    emit(d, { type: 'join', member: updated });
  } else if (!bytesEqual(old.meta, updated.meta)) {
    emit(d, { type: 'update', member: updated });
  }
}

/** Why a Vsn is unusable, or undefined. */
export function checkVsn(vsn: Uint8Array): string | undefined {
  if (vsn.length !== VSN_LENGTH) return `Vsn has ${vsn.length} bytes, expected ${VSN_LENGTH}`;
  const pmin = vsn[VSN_PMIN]!;
  const pmax = vsn[VSN_PMAX]!;
  const pcur = vsn[VSN_PCUR]!;
  if (pmin === 0 || pmax === 0 || pmin > pmax) {
    return `protocol version(s) are wrong: ${pmin} <= ${pcur} <= ${pmax} should be >0`;
  }
  return undefined;
}
