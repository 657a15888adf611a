/**
 * A parser chosen by the size of what it is given: files up to a few MiB in-process, larger ones on a worker thread
 * (worker-parser.ts). A worker earns its cost only past that size: a fresh thread, the bundle loaded and compiled
 * again (some 300 ms on a 2-core VM), its parser code cold (a 2 MiB file of 10,000 Services: 1.2 s there against
 * 0.4-0.6 s in-process, where the first load has warmed it), and the snapshot handed back in chunks through
 * structured clone (another 0.3 s). In-process the parse holds the event loop, but for less time than the
 * decision that follows it (about 0.9 s at 10,000 services), and ARP answers have a thread of their own; the
 * worker stays for files so large that their parse alone would stall the loop for seconds, and for its memory
 * bound (a file's parse cannot take the daemon's heap with it).
 */
import type { ConfigParser } from './config-parser';

/**
 * The largest file parsed in-process: 4 MiB is about 20,000 Services of the usual shape, parsed warm in about
 * 1 s on a 2-core VM, as long as the decision on that many services; the edit of a 10,000-service file is
 * announced about 2 s sooner than through a worker.
 */
export const IN_PROCESS_PARSE_MAX_BYTES = 4 * 1024 * 1024;

export function sizeChosenParser(small: ConfigParser, large: ConfigParser, maxSmallBytes = IN_PROCESS_PARSE_MAX_BYTES): ConfigParser {
  return (request, signal) => (request.bytes.byteLength <= maxSmallBytes ? small : large)(request, signal);
}
