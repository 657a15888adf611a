/**
 * Helpers for hand-written test vectors: annotated hex (spaces, line breaks and # comments stripped) and IPs that
 * must parse. Shared by the L2 fixtures and the BGP vectors.
 */
import { parseIP, type IP } from '../../src/ip';

export function hex(text: string): Uint8Array {
  const clean = text.replace(/#[^\n]*/g, '').replace(/\s+/g, '');
  if (clean.length % 2 !== 0) throw new Error(`odd hex length in test vector: ${clean.length}`);
  return Uint8Array.from(Buffer.from(clean, 'hex'));
}

export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}

export function ip(text: string): IP {
  const v = parseIP(text);
  if (!v) throw new Error(`bad IP in test: ${text}`);
  return v;
}
