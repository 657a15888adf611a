import { VSN_LENGTH, type PushNodeState, type PushPull } from '../messages';
import type { PeerAddress } from './address';
import { aliveNode } from './alive';
import { emit, log, type Draft } from './draft';
import { toPushNodeState, VSN_DCUR, VSN_DMAX, VSN_DMIN, VSN_PCUR, VSN_PMAX, VSN_PMIN } from './member-table';
import { deadNode, suspectNode } from './suspect-dead';

/**
 * Push/pull: the full state exchange of a join and of periodic anti-entropy (memberlist net.go
 * sendLocalState, mergeRemoteState; state.go verifyProtocol, mergeState).
 */

/** Our whole table (ourselves alive, the not yet reaped dead and left included) and the user state. */
export function localPushPull(d: Draft, join: boolean): PushPull {
  const nodes: PushNodeState[] = [];
  for (const name of d.probeOrder) {
    const member = d.members.get(name);
    if (member) nodes.push(toPushNodeState(member));
  }
  return { type: 'pushPull', join, nodes, userState: d.localUserState };
}

/**
 * memberlist verifyProtocol: the common range of protocol and delegate versions over every alive node, remote
 * and local, must contain every node's current versions. Returns why not, or undefined. A Vsn that is not six
 * bytes rejects the whole state (Go would crash on it).
 */
function verifyProtocol(d: Draft, remote: readonly PushNodeState[]): string | undefined {
  for (const n of remote) {
    if (n.vsn.length !== VSN_LENGTH) return `Node '${n.name}' sent a Vsn of ${n.vsn.length} bytes`;
  }
  let maxPMin = 0;
  let minPMax = 255;
  let maxDMin = 0;
  let minDMax = 255;
  const widen = (vsn: Uint8Array): void => {
    maxPMin = Math.max(maxPMin, vsn[VSN_PMIN]!);
    minPMax = Math.min(minPMax, vsn[VSN_PMAX]!);
    maxDMin = Math.max(maxDMin, vsn[VSN_DMIN]!);
    minDMax = Math.min(minDMax, vsn[VSN_DMAX]!);
  };
  for (const n of remote) if (n.state === 'alive') widen(n.vsn);
  for (const m of d.members.values()) if (m.state === 'alive') widen(m.vsn);
  const check = (name: string, vsn: Uint8Array): string | undefined => {
    const pcur = vsn[VSN_PCUR] ?? 0;
    const dcur = vsn[VSN_DCUR] ?? 0;
    if (pcur < maxPMin || pcur > minPMax) {
      return `Node '${name}' protocol version (${pcur}) is incompatible: [${maxPMin}, ${minPMax}]`;
    }
    if (dcur < maxDMin || dcur > minDMax) {
      return `Node '${name}' delegate protocol version (${dcur}) is incompatible: [${maxDMin}, ${minDMax}]`;
    }
    return undefined;
  };
  for (const n of remote) {
    const problem = check(n.name, n.vsn);
    if (problem) return problem;
  }
  for (const m of d.members.values()) {
    const problem = check(m.name, m.vsn);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * Merges a remote state: alive -> as an alive message; left -> dead sent by the node itself; dead or suspect ->
 * only *suspect* from us (a remote verdict is not trusted blindly: the node gets a chance to refute). Then hands
 * the user state to the delegate. Returns why the state was refused, or undefined.
 */
export function mergeRemoteState(d: Draft, remote: PushPull, from: PeerAddress): string | undefined {
  const problem = verifyProtocol(d, remote.nodes);
  if (problem) {
    log(d, 'warn', 'protocolIncompatible', `refusing remote state: ${problem}`, { join: remote.join });
    return problem;
  }
  for (const n of remote.nodes) {
    switch (n.state) {
      case 'alive':
        aliveNode(
          d,
          {
            type: 'alive',
            incarnation: n.incarnation,
            node: n.name,
            addr: n.addr,
            port: n.port,
            ...(n.meta === undefined ? {} : { meta: n.meta }),
            vsn: n.vsn,
          },
          false,
        );
        break;
      case 'left':
        deadNode(d, { type: 'dead', incarnation: n.incarnation, node: n.name, from: n.name });
        break;
      case 'dead':
      case 'suspect':
        suspectNode(d, { type: 'suspect', incarnation: n.incarnation, node: n.name, from: d.self.name });
        break;
    }
  }
  if (remote.userState.length > 0) {
    emit(d, { type: 'remoteState', userState: remote.userState, join: remote.join, from });
  }
  log(d, 'debug', 'pushPullMerged', `merged ${remote.nodes.length} nodes`, { join: remote.join });
  return undefined;
}
