/**
 * AES-GCM as memberlist does it (security.go encryptPayload/decryptPayload).
 *
 *   +---------+------------------+-------------------------------------------+
 *   | version | nonce (12 bytes) | ciphertext + 16-byte GCM tag                 |
 *   +---------+------------------+-------------------------------------------+
 *   version 1 (protocol >= 2, the default): no padding, 29 bytes of overhead
 *   version 0 (protocol 1): the plaintext is PKCS7-padded to a multiple of 16 first (1..16 bytes added)
 *
 * Additional authenticated data (docs/memberlist-wire.md section 4): UDP = the label bytes (empty without a label);
 * TCP = [0x0a][u32 BE length] + the label bytes. The nonce comes from an injected source so tests are
 * deterministic; the default is node:crypto randomBytes.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { MessageType } from '../messages';
import { CodecError, DecodeError } from './drop-reasons';
import type { Keyring } from './keyring';
import {
  ENCRYPTION_NONCE_BYTES,
  ENCRYPTION_OVERHEAD_V0,
  ENCRYPTION_OVERHEAD_V1,
  ENCRYPTION_TAG_BYTES,
  ENCRYPTION_VERSION_BYTES,
} from './limits';

export type EncryptionVersion = 0 | 1;
/** memberlist security.go maxEncryptionVersion. */
const MAX_ENCRYPTION_VERSION = 1;
const BLOCK = 16;

/** The most a version adds (memberlist security.go encryptOverhead), for the UDP budget. */
export const ENCRYPTION_OVERHEAD: Readonly<Record<EncryptionVersion, number>> = { 0: ENCRYPTION_OVERHEAD_V0, 1: ENCRYPTION_OVERHEAD_V1 };

/** Returns a fresh 12-byte nonce per call. */
export type NonceSource = () => Uint8Array;
export const randomNonce: NonceSource = () => randomBytes(ENCRYPTION_NONCE_BYTES);

/** memberlist net.go encryptionVersion: protocol 1 uses version 0, everything newer version 1. */
export function encryptionVersionFor(protocolVersion: number): EncryptionVersion {
  return protocolVersion <= 1 ? 0 : 1;
}

/** memberlist security.go encryptedLength. */
export function encryptedLength(version: EncryptionVersion, plainLength: number): number {
  const base = ENCRYPTION_VERSION_BYTES + ENCRYPTION_NONCE_BYTES + plainLength + ENCRYPTION_TAG_BYTES;
  return version === 1 ? base : base + (BLOCK - (plainLength % BLOCK));
}

function algorithm(key: Uint8Array): 'aes-128-gcm' | 'aes-192-gcm' | 'aes-256-gcm' {
  switch (key.length) {
    case 16:
      return 'aes-128-gcm';
    case 24:
      return 'aes-192-gcm';
    case 32:
      return 'aes-256-gcm';
    default:
      throw new CodecError('badKey', `key of ${key.length} bytes`);
  }
}

export function encryptPayload(
  version: EncryptionVersion,
  key: Uint8Array,
  plain: Uint8Array,
  aad: Uint8Array,
  nonce: Uint8Array,
): Uint8Array {
  if (nonce.length !== ENCRYPTION_NONCE_BYTES) throw new CodecError('badKey', `nonce of ${nonce.length} bytes`);
  let src = plain;
  if (version === 0) {
    const pad = BLOCK - (plain.length % BLOCK);
    src = new Uint8Array(plain.length + pad);
    src.set(plain);
    src.fill(pad, plain.length);
  }
  const cipher = createCipheriv(algorithm(key), key, nonce, { authTagLength: ENCRYPTION_TAG_BYTES });
  cipher.setAAD(aad);
  const body = cipher.update(src);
  const fin = cipher.final();
  const tag = cipher.getAuthTag();
  const out = new Uint8Array(1 + ENCRYPTION_NONCE_BYTES + body.length + fin.length + tag.length);
  out[0] = version;
  out.set(nonce, 1);
  out.set(body, 1 + ENCRYPTION_NONCE_BYTES);
  out.set(fin, 1 + ENCRYPTION_NONCE_BYTES + body.length);
  out.set(tag, 1 + ENCRYPTION_NONCE_BYTES + body.length + fin.length);
  return out;
}

/**
 * Payloads from this size on are authenticated before they are decrypted into a buffer of their own: a stream
 * message (up to 20 MB) that fails its tag, as everything from a peer without the key does, then costs no
 * plaintext copy. Smaller ones (every UDP packet) are decrypted in one pass as before.
 */
const VERIFY_FIRST_BYTES = 64 * 1024;
/** The slice the verifying pass decrypts at a time, so it never holds more than this of throwaway plaintext. */
const VERIFY_SLICE_BYTES = 256 * 1024;

/** Whether `key` authenticates msg (GCM tag over aad and ciphertext); the plaintext is thrown away slice by slice. */
function authentic(key: Uint8Array, nonce: Uint8Array, body: Uint8Array, tag: Uint8Array, aad: Uint8Array): boolean {
  try {
    const d = createDecipheriv(algorithm(key), key, nonce, { authTagLength: ENCRYPTION_TAG_BYTES });
    d.setAAD(aad);
    d.setAuthTag(tag);
    for (let at = 0; at < body.length; at += VERIFY_SLICE_BYTES) d.update(body.subarray(at, at + VERIFY_SLICE_BYTES));
    d.final();
    return true;
  } catch {
    return false;
  }
}

function open(key: Uint8Array, msg: Uint8Array, aad: Uint8Array): Uint8Array | undefined {
  const nonce = msg.subarray(1, 1 + ENCRYPTION_NONCE_BYTES);
  const body = msg.subarray(1 + ENCRYPTION_NONCE_BYTES, msg.length - ENCRYPTION_TAG_BYTES);
  const tag = msg.subarray(msg.length - ENCRYPTION_TAG_BYTES);
  if (body.length >= VERIFY_FIRST_BYTES && !authentic(key, nonce, body, tag, aad)) return undefined;
  try {
    const d = createDecipheriv(algorithm(key), key, nonce, { authTagLength: ENCRYPTION_TAG_BYTES });
    d.setAAD(aad);
    d.setAuthTag(tag);
    const a = d.update(body);
    const b = d.final();
    if (b.length === 0) return new Uint8Array(a.buffer, a.byteOffset, a.length);
    const out = new Uint8Array(a.length + b.length);
    out.set(a);
    out.set(b, a.length);
    return out;
  } catch {
    return undefined;
  }
}

/** Tries every key of the ring (primary first). Throws DecodeError('decryptFailed'). */
export function decryptPayload(keyring: Keyring, msg: Uint8Array, aad: Uint8Array): Uint8Array {
  if (msg.length === 0) throw new DecodeError('decryptFailed', 'cannot decrypt an empty payload');
  const version = msg[0] as number;
  if (version > MAX_ENCRYPTION_VERSION) throw new DecodeError('decryptFailed', `unsupported encryption version ${version}`);
  if (msg.length < encryptedLength(version as EncryptionVersion, 0)) {
    throw new DecodeError('decryptFailed', `payload of ${msg.length} bytes is too small to decrypt`);
  }
  for (const key of keyring.keys) {
    const plain = open(key, msg, aad);
    if (plain === undefined) continue;
    if (version === 1) return plain;
    // PKCS7: Go trusts the last byte (and would panic past the start); mlb checks its range.
    const pad = plain.length === 0 ? 0 : (plain[plain.length - 1] as number);
    if (pad < 1 || pad > BLOCK || pad > plain.length) throw new DecodeError('decryptFailed', `bad PKCS7 padding ${pad}`);
    return plain.subarray(0, plain.length - pad);
  }
  throw new DecodeError('decryptFailed', 'no installed key could decrypt the message');
}

/** Additional data of an encrypted stream message: the 5 header bytes, then the label (net.go decryptRemoteState). */
export function streamAad(encryptedLengthField: number, label: Uint8Array): Uint8Array {
  const out = new Uint8Array(5 + label.length);
  out[0] = MessageType.encrypt;
  new DataView(out.buffer).setUint32(1, encryptedLengthField);
  out.set(label, 5);
  return out;
}
