/**
 * MetalLB's memberlist key (metallb: speaker/main.go, internal/speakerlist/speakerlist.go): the `secretkey` file
 * of the `memberlist` Secret is read verbatim (no trimming; a trailing newline stays) and the key is
 * `sha256.New().Sum(secret)[:32]`. Go's Hash.Sum(b) appends the digest of what was written (nothing) to b, so
 * the AES-256 key is the secret bytes followed by SHA-256("") bytes, cut to 32 bytes: for MetalLB's 22-character
 * secrets, the secret then e3b0c442 98fc1c14 9afb. It is not a hash of the secret.
 */
import { createHash } from 'node:crypto';

const METALLB_KEY_BYTES = 32;

/** The key for the given secret file bytes, or undefined for an empty secret (MetalLB then runs unencrypted). */
export function metallbKeyFromSecret(secret: Uint8Array): Uint8Array | undefined {
  if (secret.length === 0) return undefined;
  const emptyDigest = createHash('sha256').digest();
  const out = new Uint8Array(secret.length + emptyDigest.length);
  out.set(secret);
  out.set(emptyDigest, secret.length);
  return out.slice(0, METALLB_KEY_BYTES);
}
