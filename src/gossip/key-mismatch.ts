/**
 * Traffic from a peer whose gossip key differs from ours: what to tell the operator, and how often. Every such
 * packet or stream is already a counted drop (decryptFailed, notEncrypted, unexpectedEncryption); without a log
 * line the joiner saw only "stream closed without a reply" and the node it dialled said nothing. Both sides now
 * name the peer's address and say the keys must match. Pure: the shell passes the time in.
 */
import type { DropReasonName } from './codec';

/**
 * One warning per peer host and reason in this interval: a peer with the wrong key retries its join and keeps
 * sending packets (several a second on the fast profile), and the log must not fill with the same line. A minute
 * still shows a problem that persists in any log window an operator looks at.
 */
export const KEY_MISMATCH_LOG_INTERVAL_MS = 60_000;
/** Peer hosts remembered for the rate limit; past this, entries whose interval is over are forgotten first. */
const KEY_MISMATCH_TRACKED_PEERS = 256;

export type KeyMismatchReason = Extract<DropReasonName, 'decryptFailed' | 'notEncrypted' | 'unexpectedEncryption'>;

const KEY_MISMATCH_REASONS: ReadonlySet<string> = new Set<KeyMismatchReason>(['decryptFailed', 'notEncrypted', 'unexpectedEncryption']);

export function isKeyMismatch(reason: string): reason is KeyMismatchReason {
  return KEY_MISMATCH_REASONS.has(reason);
}

/** memberlist's SecretKey is what MetalLB fills from its `memberlist` Secret; mlb reads it from --gossip-key-file. */
const SAME_KEY_HINT = 'the gossip key must be the same on every node (--gossip-key-file; on MetalLB speakers the memberlist secretkey)';

/** The warning for traffic from `peer` (HOST:PORT) dropped for `reason`. */
export function keyMismatchMessage(peer: string, reason: KeyMismatchReason, suppressed = 0): string {
  const what = {
    decryptFailed: `${peer} sent gossip that this node's key cannot decrypt`,
    notEncrypted: `${peer} sent plaintext gossip to this node, which encrypts`,
    unexpectedEncryption: `${peer} sent encrypted gossip to this node, which has no --gossip-key-file`,
  }[reason];
  const more = suppressed > 0 ? ` (${suppressed} more since the last warning)` : '';
  return `${what}: ${SAME_KEY_HINT}${more}`;
}

/** Whether to log now, and how many were held back since the last line for this peer and reason. */
export interface KeyMismatchVerdict {
  readonly log: boolean;
  readonly suppressed: number;
}

interface Entry {
  loggedAt: number;
  suppressed: number;
}

export class KeyMismatchLimiter {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly intervalMs = KEY_MISMATCH_LOG_INTERVAL_MS,
    private readonly maxPeers = KEY_MISMATCH_TRACKED_PEERS,
  ) {}

  /** Records one dropped packet or stream from `host` and says whether it earns a log line. */
  note(host: string, reason: KeyMismatchReason, now: number): KeyMismatchVerdict {
    const key = `${reason} ${host}`;
    const entry = this.entries.get(key);
    if (entry && now - entry.loggedAt < this.intervalMs) {
      entry.suppressed++;
      return { log: false, suppressed: entry.suppressed };
    }
    const suppressed = entry?.suppressed ?? 0;
    this.entries.delete(key);
    if (this.entries.size >= this.maxPeers) this.forgetExpired(now);
    // Still full of peers warned about within the interval: stay quiet rather than grow without bound.
    if (this.entries.size >= this.maxPeers) return { log: false, suppressed: 0 };
    this.entries.set(key, { loggedAt: now, suppressed: 0 });
    return { log: true, suppressed };
  }

  private forgetExpired(now: number): void {
    for (const [key, entry] of this.entries) {
      if (now - entry.loggedAt >= this.intervalMs) this.entries.delete(key);
    }
  }
}
