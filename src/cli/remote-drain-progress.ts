/**
 * `mlb drain NODE`: whether the target has answered the request this node gossiped, read from a snapshot of the
 * asking daemon (pure). The target republishes the request with its outcome (src/daemon/remote-drain/); the
 * snapshot lists it as members[].drain. For a drain, the target's own drain flag must also have arrived, so
 * "drained" means the others have stopped electing it.
 */
import type { ControlSnapshot } from '../daemon/control/control-snapshot';
import type { DrainResult } from '../daemon/control/control-server';
import { compareStamps } from '../daemon/remote-drain/drain-request-table';

export type RemoteDrainRequest = NonNullable<DrainResult['request']>;

export type DrainProgress =
  | { readonly state: 'waiting' }
  | { readonly state: 'done'; readonly message: string }
  | { readonly state: 'failed'; readonly code: 'drainFailedOnTarget' | 'drainSuperseded'; readonly message: string };

const done = (action: 'drain' | 'undrain') => (action === 'drain' ? 'drained' : 'undrained');

export function drainProgress(snapshot: ControlSnapshot, request: RemoteDrainRequest): DrainProgress {
  const member = snapshot.members.find((m) => m.name === request.target);
  const seen = member?.drain;
  if (!member || !seen) return { state: 'waiting' };
  const order = compareStamps(seen, request);
  if (order < 0) return { state: 'waiting' };
  if (order > 0) {
    // A later request for the same node, from anywhere: it decides, not ours.
    if (seen.action === request.action && seen.outcome === 'applied') {
      return { state: 'done', message: `${request.target} ${done(request.action)} (asked by ${seen.requestedBy}, after this request)` };
    }
    return {
      state: 'failed',
      code: 'drainSuperseded',
      message: `${request.target} got a later request before answering this one: ${seen.action} asked by ${seen.requestedBy} (${seen.outcome}); this ${request.action} no longer counts`,
    };
  }
  if (seen.outcome === 'failed') {
    return {
      state: 'failed',
      code: 'drainFailedOnTarget',
      message: `${request.target} could not ${request.action}: ${seen.detail ?? 'no reason given'}`,
    };
  }
  if (seen.outcome === 'pending' || (request.action === 'drain' && !member.draining)) return { state: 'waiting' };
  return { state: 'done', message: `${request.target} ${done(request.action)} (asked by ${request.requestedBy})` };
}

/** Why the wait ended without an answer: where the target stands in the asking node's view. */
export function drainTimeoutMessage(snapshot: ControlSnapshot | undefined, request: RemoteDrainRequest, waitedSeconds: number): string {
  const member = snapshot?.members.find((m) => m.name === request.target);
  const where = member ? `${member.state} in ${snapshot?.node.name ?? 'this node'}'s view` : 'no longer a member';
  return `${request.target} has not confirmed the ${request.action} within ${waitedSeconds} s (it is ${where}); the request stays in gossip and ${request.target} applies it when it hears it, unless a later one comes first`;
}
