/**
 * Peer addresses as the state machine sees them: raw IP bytes (4, or 16 for IPv6 and IPv4-mapped) and a port,
 * with the node name when it is known (memberlist's Address{Addr, Name}). Resolving host names is the driver's
 * business: the reducer never touches DNS.
 */
export interface PeerAddress {
  readonly addr: Uint8Array;
  readonly port: number;
  /** The node we believe listens there, when known (memberlist uses it for CRC and node-name checks). */
  readonly name?: string;
}

export function bytesEqual(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  const la = a?.length ?? 0;
  const lb = b?.length ?? 0;
  if (la !== lb) return false;
  for (let i = 0; i < la; i++) if (a![i] !== b![i]) return false;
  return true;
}

/** Text for logs: dotted quad for 4 bytes (and IPv4-mapped 16), hex groups otherwise, then the port. */
export function formatAddress(addr: Uint8Array, port: number): string {
  const v4 =
    addr.length === 4
      ? addr
      : addr.length === 16 && addr.subarray(0, 10).every((b) => b === 0) && addr[10] === 0xff && addr[11] === 0xff
        ? addr.subarray(12)
        : undefined;
  if (v4) return `${v4.join('.')}:${port}`;
  const groups: string[] = [];
  for (let i = 0; i + 1 < addr.length; i += 2) groups.push(((addr[i]! << 8) | addr[i + 1]!).toString(16));
  return `[${groups.join(':')}]:${port}`;
}

/** A map key for an address: byte-exact, so the 4-byte and IPv4-mapped forms are different keys (as in Go). */
export function addressKey(addr: Uint8Array, port: number): string {
  let s = '';
  for (const b of addr) s += b.toString(16).padStart(2, '0');
  return `${s}/${port}`;
}
