/**
 * What happens to a records payload larger than one packet, on the real gossip node: one node of a small virtual
 * cluster broadcasts it (as RecordsWire.broadcast does) and also holds it as its push/pull state (stateChanged).
 * Measured: the largest datagram anyone sent meanwhile (it must fit UDPBufferSize: memberlist never sends more),
 * whether the payload ever arrived as a gossiped user message, and when every other member had it by push/pull
 * (each member that has it pushes it on, as RecordsWire makes a received newer table its own state).
 */
import type { SwimConfig } from '../../src/gossip/swim';
import { GossipWorld } from './gossip-world';

export interface RecordsDelivery {
  /** The largest UDP payload any node sent while the records were queued. */
  readonly largestDatagram: number;
  /** Members that received the payload as a gossiped user message (a UDP broadcast). */
  readonly byBroadcast: number;
  /** Virtual ms from the broadcast until every other member had it by push/pull; undefined if some never did. */
  readonly allByPushPullMs: number | undefined;
}

/** Members of the check: enough for gossip fan-out and push/pull partners to vary. */
const CHECK_MEMBERS = 5;

export async function recordsDelivery(config: SwimConfig, payload: Uint8Array, timeoutMs: number, seed: number): Promise<RecordsDelivery> {
  const world = await GossipWorld.create({ n: CHECK_MEMBERS, config, seed });
  try {
    world.joinAllToSeed();
    await world.net.runUntil(() => world.converged(), { timeoutMs });
    let largestDatagram = 0;
    world.net.tapDatagrams((d) => (largestDatagram = Math.max(largestDatagram, d.bytes.length)));
    const received = new Set<number>();
    let byBroadcast = 0;
    world.nodes.forEach((node, i) => {
      node.on('remoteState', (state) => {
        if (state.length !== payload.length || received.has(i)) return;
        received.add(i);
        // As RecordsWire does with a newer table: it becomes this node's push/pull state too (anti-entropy).
        node.setLocalState(state);
      });
      node.on('userMessage', (message) => {
        if (message.length === payload.length) byBroadcast++;
      });
    });
    const source = world.nodes[0]!;
    const start = world.net.now();
    source.broadcast(payload, 'mlb-allocation');
    source.setLocalState(payload);
    const others = world.nodes.length - 1;
    const all = await world.net.runUntil(() => [...received].filter((i) => i !== 0).length === others, { timeoutMs });
    return { largestDatagram, byBroadcast, allByPushPullMs: all ? world.net.now() - start : undefined };
  } finally {
    await world.close();
  }
}
