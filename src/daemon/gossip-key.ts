/**
 * The gossip encryption key from --gossip-key-file: the contents of MetalLB's `memberlist` Secret, key
 * `secretkey`, read verbatim (a trailing newline stays part of the secret, as in MetalLB) and turned into the
 * AES-256 key exactly as MetalLB's speaker does, so mlb and MetalLB speakers share one encrypted cluster.
 */
import { readFile } from 'node:fs/promises';
import { Keyring, metallbKeyFromSecret } from '../gossip/codec';

export class GossipKeyError extends Error {
  readonly code = 'gossipKeyUnusable';
}

export async function loadGossipKeyring(path: string): Promise<Keyring> {
  let secret: Uint8Array;
  try {
    secret = new Uint8Array(await readFile(path));
  } catch (error) {
    throw new GossipKeyError(`cannot read --gossip-key-file ${path}: ${(error as Error).message}`);
  }
  const key = metallbKeyFromSecret(secret);
  if (!key) throw new GossipKeyError(`--gossip-key-file ${path} is empty: put MetalLB's secretkey (e.g. 16 random bytes, base64) in it`);
  return Keyring.create(key);
}
