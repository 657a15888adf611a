/**
 * EUI-48 MAC addresses (IEEE 802): six bytes, held as a Uint8Array of length MAC_BYTES.
 *
 * Text form: six two-digit hex groups separated by ':' or '-' (either case on input, as Go's net.ParseMAC
 * accepts for 48-bit addresses); formatMAC writes lowercase with ':', the form tcpdump and `ip link` print.
 */
export type MacAddress = Uint8Array;

export const MAC_BYTES = 6;
/** The Ethernet broadcast address: every station accepts it (ARP requests, gratuitous ARP). */
export const BROADCAST_MAC: MacAddress = Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0xff, 0xff);
/** The all-zero address: "unknown" in an ARP request's target hardware field (RFC 826). */
export const ZERO_MAC: MacAddress = new Uint8Array(MAC_BYTES);

/** The I/G bit, least significant bit of the first octet: set on group (multicast and broadcast) addresses. */
const GROUP_BIT = 0x01;

const MAC_TEXT = /^([0-9a-f]{2})([:-])([0-9a-f]{2})\2([0-9a-f]{2})\2([0-9a-f]{2})\2([0-9a-f]{2})\2([0-9a-f]{2})$/i;

/** Parses "aa:bb:cc:dd:ee:ff" or "aa-bb-cc-dd-ee-ff" (one separator throughout); undefined for anything else. */
export function parseMAC(text: string): MacAddress | undefined {
  const m = MAC_TEXT.exec(text);
  if (!m) return undefined;
  const out = new Uint8Array(MAC_BYTES);
  const groups = [m[1], m[3], m[4], m[5], m[6], m[7]];
  for (let i = 0; i < MAC_BYTES; i++) out[i] = parseInt(groups[i] as string, 16);
  return out;
}

/** Lowercase, colon-separated; throws on a length other than six (a programming error, never wire input). */
export function formatMAC(mac: Uint8Array): string {
  if (mac.length !== MAC_BYTES) throw new RangeError(`a MAC address has ${MAC_BYTES} bytes, not ${mac.length}`);
  let s = '';
  for (let i = 0; i < MAC_BYTES; i++) {
    if (i > 0) s += ':';
    s += (mac[i] as number).toString(16).padStart(2, '0');
  }
  return s;
}

export function macEquals(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function isBroadcastMAC(mac: Uint8Array): boolean {
  return macEquals(mac, BROADCAST_MAC);
}

/** Group address (multicast or broadcast): the I/G bit is set (IEEE 802-2014 section 8.2). */
export function isGroupMAC(mac: Uint8Array): boolean {
  return mac.length === MAC_BYTES && ((mac[0] as number) & GROUP_BIT) !== 0;
}

/** A copy of six bytes at `offset`, so a decoded packet never aliases the receive buffer's MAC fields. */
export function macAt(bytes: Uint8Array, offset: number): MacAddress {
  return bytes.slice(offset, offset + MAC_BYTES);
}
