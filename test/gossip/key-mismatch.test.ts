import { describe, expect, it } from 'vitest';
import { isKeyMismatch, KEY_MISMATCH_LOG_INTERVAL_MS, keyMismatchMessage, KeyMismatchLimiter } from '../../src/gossip/key-mismatch';

describe('KeyMismatchLimiter', () => {
  it('logs the first drop of a peer, holds back the rest of the interval, then logs with the count', () => {
    const limiter = new KeyMismatchLimiter();
    expect(limiter.note('10.0.0.2', 'decryptFailed', 0)).toEqual({ log: true, suppressed: 0 });
    expect(limiter.note('10.0.0.2', 'decryptFailed', 1)).toEqual({ log: false, suppressed: 1 });
    expect(limiter.note('10.0.0.2', 'decryptFailed', KEY_MISMATCH_LOG_INTERVAL_MS - 1)).toEqual({ log: false, suppressed: 2 });
    expect(limiter.note('10.0.0.2', 'decryptFailed', KEY_MISMATCH_LOG_INTERVAL_MS)).toEqual({ log: true, suppressed: 2 });
  });

  it('keeps peers and reasons apart', () => {
    const limiter = new KeyMismatchLimiter();
    expect(limiter.note('10.0.0.2', 'decryptFailed', 0).log).toBe(true);
    expect(limiter.note('10.0.0.3', 'decryptFailed', 0).log).toBe(true);
    expect(limiter.note('10.0.0.2', 'notEncrypted', 0).log).toBe(true);
  });

  it('remembers a bounded number of peers, forgetting those whose interval is over first', () => {
    const limiter = new KeyMismatchLimiter(100, 2);
    expect(limiter.note('a', 'decryptFailed', 0).log).toBe(true);
    expect(limiter.note('b', 'decryptFailed', 50).log).toBe(true);
    // Full of peers warned about within the interval: a third stays quiet.
    expect(limiter.note('c', 'decryptFailed', 60).log).toBe(false);
    // a's interval is over: it is forgotten to make room.
    expect(limiter.note('c', 'decryptFailed', 100).log).toBe(true);
    expect(limiter.note('b', 'decryptFailed', 120).log).toBe(false);
  });
});

describe('keyMismatchMessage', () => {
  it('names the peer and says the keys must match', () => {
    expect(keyMismatchMessage('10.0.0.2:7946', 'decryptFailed')).toBe(
      "10.0.0.2:7946 sent gossip that this node's key cannot decrypt: the gossip key must be the same on every node " +
        '(--gossip-key-file; on MetalLB speakers the memberlist secretkey)',
    );
    expect(keyMismatchMessage('10.0.0.2:7946', 'notEncrypted', 3)).toMatch(/plaintext gossip .* \(3 more since the last warning\)$/);
  });

  it('takes only the three reasons a key mismatch produces', () => {
    expect(['decryptFailed', 'notEncrypted', 'unexpectedEncryption'].every(isKeyMismatch)).toBe(true);
    expect(isKeyMismatch('badCrc')).toBe(false);
  });
});
