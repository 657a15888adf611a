/**
 * How a thread knows it is the daemon's gossip thread (threaded-gossip.ts). Apart from the rest so that the
 * bundle's entry (src/cli/main.ts) can ask without loading gossip: a start of mlb that is no worker must not pay
 * for it.
 */
import { isMainThread, workerData } from 'node:worker_threads';

/** workerData.role of the gossip thread. */
export const GOSSIP_THREAD_ROLE = 'mlb-gossip';

/** True inside the worker started by ThreadedGossip (main.ts then runs runGossipThread instead of the CLI). */
export function isGossipThread(): boolean {
  return !isMainThread && (workerData as { role?: unknown } | null)?.role === GOSSIP_THREAD_ROLE;
}
