import type { GossipMessage } from '../messages';
import type { PeerAddress } from './address';
import { emit, log, type Draft } from './draft';
import { joinExchangeDone } from './join-leave';
import { probeTcpAcked } from './probe';
import { localPushPull, mergeRemoteState } from './push-pull-merge';

/**
 * Stream traffic (memberlist net.go handleConn, sendAndReceiveState, sendPingAndWaitForAck): what a peer's
 * stream asks of us, and what the replies to ours mean.
 */
export function handleInboundStream(d: Draft, stream: number, from: PeerAddress, message: GossipMessage): void {
  switch (message.type) {
    case 'pushPull': {
      // memberlist answers with its state before merging the remote one.
      d.effects.push({ type: 'replyStream', stream, message: localPushPull(d, message.join) });
      mergeRemoteState(d, message, from);
      return;
    }
    case 'ping': {
      if (message.node !== '' && message.node !== d.self.name) {
        log(d, 'warn', 'pingForOtherNode', `got stream ping for unexpected node ${message.node}`);
        d.effects.push({ type: 'replyStream', stream });
        return;
      }
      d.effects.push({ type: 'replyStream', stream, message: { type: 'ack', seqNo: message.seqNo } });
      return;
    }
    case 'user':
      emit(d, { type: 'userMessage', payload: message.payload, from });
      d.effects.push({ type: 'replyStream', stream });
      return;
    default:
      log(d, 'error', 'unexpectedMessage', `received invalid stream message type ${message.type}`);
      d.effects.push({ type: 'replyStream', stream });
  }
}

function failure(d: Draft, stream: number, error: string): void {
  const pending = d.streams.get(stream);
  if (!pending) return;
  d.streams.delete(stream);
  switch (pending.purpose) {
    case 'join':
      joinExchangeDone(d, pending.request, pending.to, error);
      return;
    case 'pushPull':
      log(d, 'warn', 'pushPullFailed', `push/pull with ${pending.to.name ?? 'peer'} failed: ${error}`);
      return;
    case 'tcpPing':
      // A dead node is expected to refuse: nothing to say (memberlist stays quiet too).
      return;
  }
}

export function handleStreamReply(d: Draft, stream: number, message: GossipMessage): void {
  const pending = d.streams.get(stream);
  if (!pending) {
    log(d, 'debug', 'streamExpired', `reply on a stream no longer awaited`, { stream });
    return;
  }
  if (pending.purpose === 'tcpPing') {
    d.streams.delete(stream);
    if (message.type !== 'ack' || !probeTcpAcked(d, stream, message.seqNo)) {
      log(d, 'debug', 'unexpectedAck', `unexpected reply to a TCP ping: ${message.type}`);
    }
    return;
  }
  if (message.type === 'err') return failure(d, stream, `remote error: ${message.error}`);
  if (message.type !== 'pushPull') return failure(d, stream, `bad message type ${message.type}`);
  d.streams.delete(stream);
  const problem = mergeRemoteState(d, message, pending.to);
  if (pending.purpose === 'join') joinExchangeDone(d, pending.request, pending.to, problem);
  else if (problem) log(d, 'warn', 'pushPullFailed', `push/pull merge failed: ${problem}`);
}

export function handleStreamFailed(d: Draft, stream: number, error: string): void {
  failure(d, stream, error);
}

/** The stream's deadline passed without an answer from the driver. */
export function streamExpired(d: Draft, stream: number): void {
  failure(d, stream, 'timeout');
}
