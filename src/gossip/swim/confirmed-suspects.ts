import type { SwimState } from './state';
import type { Suspicion } from './suspicion';

/**
 * A confirmed suspicion: k >= 1 other members independently failed to reach the node (each with a direct ping,
 * its retries, indirect pings through relays and a TCP ping, over a whole probe deadline), so the suspicion timer
 * already stands at its minimum (Lifeguard, memberlist suspicion.go). memberlist still waits that minimum for a
 * refutation before declaring the node dead; mlb's election does not wait for it (see confirmedSuspects).
 *
 * k = 0 (two-node clusters: nobody can confirm) is never confirmed: a lone prober's failure may be its own.
 */
export function isConfirmed(s: Suspicion): boolean {
  return s.k >= 1 && s.confirmations >= s.k;
}

/**
 * The members whose suspicion is confirmed, with the instant the k-th confirmation arrived here.
 *
 * Why the election may act on it before the node is declared dead: a confirmed suspicion becomes a death unless
 * the node refutes within the suspicion minimum, and a live node refutes as soon as it hears the suspicion. The
 * time memberlist waits is there for a refutation that, for a crashed or unplugged node, never comes; giving the
 * VIP to the next node at confirmation saves that whole minimum (600 ms with the fast profile) on every real
 * failure. The cost: a false confirmation (two members failing to reach a live node in the same window, which the
 * retries and the indirect and TCP paths make rare, and the node silent meanwhile, which a live one rarely is)
 * moves its VIPs away and back once it refutes, where memberlist would only have logged a suspicion. Only with
 * SwimConfig.failoverAtConfirmation (the fast profile); lan and wan keep memberlist's election at death. Every node learns the same suspect messages by gossip, so every node
 * reaches the same election (the move is still the election's decision, not one node's guess).
 */
export function confirmedSuspects(state: SwimState): Map<string, number> {
  const confirmed = new Map<string, number>();
  if (!state.config.failoverAtConfirmation) return confirmed;
  for (const [name, suspicion] of state.suspicions) {
    const member = state.members.get(name);
    if (member?.state === 'suspect' && isConfirmed(suspicion) && silentSince(state, name, suspicion.start))
      confirmed.set(name, suspicion.confirmedAt ?? suspicion.start);
  }
  return confirmed;
}

/**
 * Nothing from the member reached this node since its suspicion began. A crashed or unplugged node is silent; a
 * live one that is only slow (a starved event loop, a loss burst) still sends its late acks, its own probes and
 * its gossip, and so is not taken for gone on a confirmation alone (it waits for death, or refutes).
 */
function silentSince(state: SwimState, name: string, since: number): boolean {
  return (state.lastHeard.get(name) ?? -Infinity) < since;
}
