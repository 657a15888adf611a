/**
 * A parser chosen by the size of what it is given: small files in-process, large ones on a worker thread
 * (worker-parser.ts). A worker earns its start-up (a fresh thread, the bundle loaded and compiled again: some
 * 300 ms on a 2-core VM, and its parser code runs cold) only when the parse itself would stall the event loop for
 * longer than that. A small file parsed in-process costs a stall of tens of milliseconds, well inside every timer
 * the loop serves (gossip probe timeouts, BFD detection times; ARP answers have a thread of their own), and an
 * edit of it is announced that much sooner.
 */
import type { ConfigParser } from './config-parser';

/**
 * The largest file parsed in-process: 256 KiB is about 1,200 Services of the usual shape, parsed warm in some
 * 20-40 ms on a 2-core VM. Past it the stall grows with the file (100-150 ms per 2 MiB of YAML alone) while a
 * worker's start-up stays the same.
 */
export const IN_PROCESS_PARSE_MAX_BYTES = 256 * 1024;

export function sizeChosenParser(small: ConfigParser, large: ConfigParser, maxSmallBytes = IN_PROCESS_PARSE_MAX_BYTES): ConfigParser {
  return (request, signal) => (request.bytes.byteLength <= maxSmallBytes ? small : large)(request, signal);
}
