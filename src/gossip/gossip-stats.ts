/** Counters the gossip shell keeps for metrics and status: drops by reason, bytes, streams. */
export interface GossipCounters {
  packetsReceived: number;
  packetsSent: number;
  bytesReceived: number;
  bytesSent: number;
  streamsAccepted: number;
  streamsOpened: number;
  streamFailures: number;
  /** Received packets and streams refused, by codec drop reason (decryptFailed counts a wrong key). */
  drops: Record<string, number>;
}

export function emptyCounters(): GossipCounters {
  return {
    packetsReceived: 0,
    packetsSent: 0,
    bytesReceived: 0,
    bytesSent: 0,
    streamsAccepted: 0,
    streamsOpened: 0,
    streamFailures: 0,
    drops: {},
  };
}

export function countDrop(counters: GossipCounters, reason: string): void {
  counters.drops[reason] = (counters.drops[reason] ?? 0) + 1;
}
