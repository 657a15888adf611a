import type { Dead, Suspect } from '../messages';
import { suspicionParameters } from './config';
import { broadcast, bump, emit, log, numNodes, type Draft } from './draft';
import { isDeadOrLeft, type Member } from './member-table';
import { refute } from './refute';
import { isConfirmed } from './confirmed-suspects';
import { confirmSuspicion, startSuspicion } from './suspicion';

/**
 * A suspect message (memberlist state.go suspectNode).
 * - Unknown node, or an older incarnation: ignored.
 * - A suspicion already running: a report from a new member is a confirmation (shortens the timer, and is
 *   re-gossiped so confirmations keep flowing); a repeated one changes nothing.
 * - Only alive members become suspect. About ourselves: refute.
 * - Otherwise: re-broadcast, mark suspect, and start the timer (k, min, max for the current cluster size).
 */
export function suspectNode(d: Draft, s: Suspect): void {
  const member = currentMember(d, 'suspect', s);
  if (!member) return;
  const running = d.suspicions.get(s.node);
  if (running) {
    const next = confirmSuspicion(running, s.from);
    if (next) {
      const confirmed = isConfirmed(next) ? { ...next, confirmedAt: d.now } : next;
      d.suspicions.set(s.node, confirmed);
      broadcast(d, s.node, s);
      // The election stops counting on a member with a confirmed suspicion (confirmed-suspects.ts).
      if (confirmed.confirmedAt !== undefined && d.config.failoverAtConfirmation) emit(d, { type: 'suspicion', member, confirmed: true });
      log(d, 'debug', 'suspectConfirmed', `suspicion of ${s.node} confirmed by ${s.from}`, {
        confirmations: confirmed.confirmations,
        k: confirmed.k,
        deadlineIn: confirmed.deadline - d.now,
      });
    }
    return;
  }
  if (member.state !== 'alive') return;
  if (member.name === d.self.name) {
    refute(d, s.incarnation);
    log(d, 'warn', 'refute', `refuting a suspect message (from: ${s.from})`, { incarnation: s.incarnation });
    return;
  }
  broadcast(d, s.node, s);
  const suspected: Member = { ...member, incarnation: s.incarnation, state: 'suspect', stateChange: d.now };
  d.members.set(s.node, suspected);
  const { k, min, max } = suspicionParameters(d.config, numNodes(d));
  const suspicion = startSuspicion(s.from, k, min, max, d.now);
  d.suspicions.set(s.node, suspicion);
  bump(d, 'suspicionsStarted');
  log(d, 'info', 'suspect', `suspect ${s.node} (from: ${s.from})`, {
    incarnation: s.incarnation,
    k,
    min,
    max,
    timeout: suspicion.deadline - d.now,
  });
}

/** A suspicion timer is due: declare the node dead if it is still the same suspicion (memberlist's timeoutFn). */
export function suspicionExpired(d: Draft, node: string): void {
  const suspicion = d.suspicions.get(node);
  d.suspicions.delete(node);
  const member = d.members.get(node);
  if (!suspicion || !member || member.state !== 'suspect' || member.stateChange !== suspicion.stateChange) return;
  log(
    d,
    'info',
    'suspicionTimeout',
    `marking ${node} as failed, suspect timeout reached ` + `(${suspicion.confirmations} peer confirmations)`,
    { confirmations: suspicion.confirmations, k: suspicion.k },
  );
  deadNode(d, { type: 'dead', incarnation: member.incarnation, node, from: d.self.name });
}

/**
 * A dead message (memberlist state.go deadNode).
 * - Unknown node, or an older incarnation: ignored. Any suspicion ends. Already dead or left: nothing more.
 * - About ourselves: refute, unless we are leaving (then it is our own leave: broadcast it, tagged so leave()
 *   knows when it went out).
 * - Otherwise: re-broadcast; Left when the node itself sent it (From == Node), else Dead; a leave event.
 */
export function deadNode(d: Draft, msg: Dead): void {
  const member = currentMember(d, 'dead', msg);
  if (!member) return;
  d.suspicions.delete(msg.node);
  if (isDeadOrLeft(member)) return;

  if (member.name === d.self.name) {
    if (!d.leaving) {
      refute(d, msg.incarnation);
      log(d, 'warn', 'refute', `refuting a dead message (from: ${msg.from})`, { incarnation: msg.incarnation });
      return;
    }
    broadcast(d, msg.node, msg, 'leave');
  } else {
    broadcast(d, msg.node, msg);
  }

  const state = msg.node === msg.from ? 'left' : 'dead';
  const gone: Member = { ...member, incarnation: msg.incarnation, state, stateChange: d.now };
  d.members.set(msg.node, gone);
  if (state === 'dead') bump(d, 'deadDeclared');
  log(d, 'info', state, state === 'left' ? `${msg.node} left` : `${msg.node} is dead (from: ${msg.from})`, {
    incarnation: msg.incarnation,
  });
  emit(d, { type: 'leave', member: gone });
}

/** The member a suspect or dead message is about, unless it is unknown or the news is older (both logged). */
function currentMember(d: Draft, kind: 'suspect' | 'dead', msg: Suspect | Dead): Member | undefined {
  const member = d.members.get(msg.node);
  if (!member) {
    log(d, 'debug', 'unknownNode', `${kind} about unknown node ${msg.node}`, { from: msg.from });
    return undefined;
  }
  if (msg.incarnation < member.incarnation) {
    log(d, 'debug', 'staleIncarnation', `${kind} about ${msg.node} is older`, {
      incarnation: msg.incarnation,
      known: member.incarnation,
    });
    return undefined;
  }
  return member;
}
