/**
 * The bytes every inbound stream together may hold before its message is complete (and, when encrypted, before
 * it is authenticated). memberlist bounds one message (maxPushStateBytes) but not their sum, so twenty peers
 * without the key, each announcing 20 MB, cost 400 MB before a single tag is checked. Each StreamReader given a
 * budget reserves what it holds and gives it back when its message is done, it fails or its stream closes; a
 * reservation that does not fit fails that stream alone. Pure bookkeeping: no timers, no I/O.
 */
export class StreamBudget {
  private held = 0;

  constructor(readonly limit: number) {}

  /** Bytes reserved now by every reader together. */
  get used(): number {
    return this.held;
  }

  /** Reserves `bytes` if they fit under the limit; false (and nothing reserved) when they do not. */
  tryReserve(bytes: number): boolean {
    if (bytes <= 0) return true;
    if (this.held + bytes > this.limit) return false;
    this.held += bytes;
    return true;
  }

  release(bytes: number): void {
    this.held = Math.max(0, this.held - bytes);
  }
}
