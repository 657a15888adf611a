/**
 * The gossip encryption key from --gossip-key-file: the contents of MetalLB's `memberlist` Secret, key
 * `secretkey`, read verbatim (a trailing newline stays part of the secret, as in MetalLB) and turned into the
 * AES-256 key exactly as MetalLB's speaker does, so mlb and MetalLB speakers share one encrypted cluster.
 *
 * Two checks MetalLB does not make, because a Kubernetes Secret has neither problem: the file must not be
 * readable by other users (anyone who reads it can join the cluster and announce any IP), and the secret must
 * hold at least as many bytes as memberlist's smallest key (metallb-key.ts: the key is the secret followed by
 * the public SHA-256 of nothing, so every byte the secret lacks is a byte anyone knows).
 */
import { open } from 'node:fs/promises';
import { CodedError } from '../errors/coded-error';
import { AES_KEY_SIZES, Keyring, metallbKeyFromSecret } from '../gossip/codec';

/**
 * The fewest secret bytes accepted: memberlist's smallest key (AES-128, 16 bytes). MetalLB's own secrets are
 * longer (22 base64 characters from 16 random bytes, or `openssl rand -base64 128` in its older install docs).
 */
export const MIN_SECRET_BYTES = Math.min(...AES_KEY_SIZES);
/** Group- and other-read bits: either lets a user other than the daemon's read the key. */
const READABLE_BY_OTHERS = 0o044;

export type GossipKeyErrorCode = 'gossipKeyUnusable' | 'gossipKeyTooShort';

export class GossipKeyError extends CodedError<GossipKeyErrorCode> {}

/** A problem worth a warning at start-up; the key is still used. */
export interface GossipKeyWarning {
  readonly event: 'gossipKeyFileReadable';
  readonly message: string;
}

export interface LoadedGossipKey {
  readonly keyring: Keyring;
  readonly warnings: readonly GossipKeyWarning[];
}

/** The warning for a key file whose permission bits let other users read it, if they do. Pure. */
export function keyFileModeWarning(path: string, mode: number): GossipKeyWarning | undefined {
  if ((mode & READABLE_BY_OTHERS) === 0) return undefined;
  const octal = (mode & 0o777).toString(8).padStart(4, '0');
  return {
    event: 'gossipKeyFileReadable',
    message: `--gossip-key-file ${path} is readable by other users (mode ${octal}): whoever reads it can join the cluster; run chmod 600 ${path}`,
  };
}

/** The keyring for a secret, or the error refusing it. Pure. */
export function keyringFromSecret(path: string, secret: Uint8Array): Keyring {
  const key = metallbKeyFromSecret(secret);
  if (!key)
    throw new GossipKeyError(
      'gossipKeyUnusable',
      `--gossip-key-file ${path} is empty: put MetalLB's secretkey (e.g. 32 random bytes, base64) in it`,
    );
  if (secret.length < MIN_SECRET_BYTES) {
    throw new GossipKeyError(
      'gossipKeyTooShort',
      `--gossip-key-file ${path} holds ${secret.length} bytes, too few for a key: memberlist's smallest key is ${MIN_SECRET_BYTES} bytes ` +
        "(use MetalLB's secretkey, or e.g. head -c 32 /dev/urandom | base64)",
    );
  }
  return Keyring.create(key);
}

export async function loadGossipKeyring(path: string): Promise<LoadedGossipKey> {
  let secret: Uint8Array;
  let mode: number;
  try {
    const file = await open(path, 'r');
    try {
      mode = (await file.stat()).mode;
      secret = new Uint8Array(await file.readFile());
    } finally {
      await file.close();
    }
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'EISDIR' ? 'it is a directory, not a file (EISDIR)' : (error as Error).message;
    throw new GossipKeyError('gossipKeyUnusable', `cannot read --gossip-key-file ${path}: ${reason}`, { cause: error });
  }
  const keyring = keyringFromSecret(path, secret);
  const warning = keyFileModeWarning(path, mode);
  return { keyring, warnings: warning ? [warning] : [] };
}
