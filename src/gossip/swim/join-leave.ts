import { META_MAX_BYTES } from '../messages';
import type { PeerAddress } from './address';
import { aliveNode } from './alive';
import { emit, log, openStream, selfMember, type Draft } from './draft';
import { SwimConfigError, SwimConfigErrorCode } from './errors';
import { isDeadOrLeft } from './member-table';
import { localPushPull } from './push-pull-merge';
import { deadNode } from './suspect-dead';

/**
 * The public membership calls (memberlist memberlist.go Join, Leave, UpdateNode).
 */

/** Join: a push/pull with Join=true to every address; a joinResult event once all have answered. */
export function startJoin(d: Draft, targets: readonly PeerAddress[]): void {
  const request = d.nextJoinId;
  d.nextJoinId++;
  if (targets.length === 0) {
    emit(d, { type: 'joinResult', request, joined: 0, errors: [] });
    return;
  }
  d.joins.set(request, { pending: targets.length, joined: 0, errors: [] });
  for (const to of targets) {
    openStream(d, localPushPull(d, true), { purpose: 'join', to, request, deadline: d.now + d.config.tcpTimeout });
  }
}

/** One join exchange ended: `error` undefined for success. */
export function joinExchangeDone(d: Draft, request: number, to: PeerAddress, error: string | undefined): void {
  const join = d.joins.get(request);
  if (!join) return;
  const updated = {
    pending: join.pending - 1,
    joined: join.joined + (error === undefined ? 1 : 0),
    errors: error === undefined ? join.errors : [...join.errors, { to, error }],
  };
  if (error !== undefined) log(d, 'debug', 'joinFailed', `failed to join: ${error}`, { request });
  if (updated.pending > 0) {
    d.joins.set(request, updated);
    return;
  }
  d.joins.delete(request);
  if (updated.joined > 0)
    log(d, 'info', 'joined', `joined through ${updated.joined} of ${updated.joined + updated.errors.length} addresses`);
  emit(d, { type: 'joinResult', request, joined: updated.joined, errors: updated.errors });
}

function anyOtherAlive(d: Draft): boolean {
  for (const m of d.members.values()) if (m.name !== d.self.name && !isDeadOrLeft(m)) return true;
  return false;
}

/**
 * Leave: broadcast our own death with From == ourselves (others record Left, not Dead), then report when the
 * broadcast has been sent its full retransmit count, when nobody is left to tell, or at the timeout.
 */
export function startLeave(d: Draft, timeout: number): void {
  if (d.leaving) {
    emit(d, { type: 'leaveResult', outcome: 'alreadyLeft' });
    return;
  }
  d.leaving = true;
  const me = selfMember(d);
  if (!me) return;
  log(d, 'info', 'leaving', `leaving the cluster`, { incarnation: me.incarnation });
  deadNode(d, { type: 'dead', incarnation: me.incarnation, node: me.name, from: me.name });
  if (!anyOtherAlive(d)) {
    emit(d, { type: 'leaveResult', outcome: 'alone' });
    return;
  }
  d.leaveDeadline = timeout > 0 ? d.now + timeout : Number.POSITIVE_INFINITY;
}

/** After every step: has the leave broadcast gone out, or has time run out? */
export function checkLeave(d: Draft): void {
  if (d.leaveDeadline === undefined) return;
  const stillQueued = d.memberQueue.queued.some((item) => item.notify === 'leave');
  if (!stillQueued) {
    d.leaveDeadline = undefined;
    log(d, 'info', 'leaveDone', `leave broadcast sent`);
    emit(d, { type: 'leaveResult', outcome: 'broadcast' });
  } else if (d.now >= d.leaveDeadline) {
    d.leaveDeadline = undefined;
    log(d, 'warn', 'leaveDone', `timeout waiting for leave broadcast`);
    emit(d, { type: 'leaveResult', outcome: 'timeout' });
  }
}

export function checkMeta(meta: Uint8Array | undefined): void {
  if (meta && meta.length > META_MAX_BYTES) {
    throw new SwimConfigError(
      SwimConfigErrorCode.metaTooLong,
      `node meta data is ${meta.length} bytes, longer than the limit of ${META_MAX_BYTES}`,
    );
  }
}

/** UpdateNode: announce ourselves with new meta under the next incarnation. */
export function setMeta(d: Draft, meta: Uint8Array): void {
  checkMeta(meta);
  const me = selfMember(d);
  if (!me) return;
  d.incarnation = (d.incarnation + 1) >>> 0;
  aliveNode(
    d,
    {
      type: 'alive',
      incarnation: d.incarnation,
      node: me.name,
      addr: me.addr,
      port: me.port,
      meta,
      vsn: d.self.vsn,
    },
    true,
  );
  log(d, 'info', 'metaUpdated', `meta updated`, { incarnation: d.incarnation, bytes: meta.length });
}
