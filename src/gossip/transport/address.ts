import { ipFromBytes, ipToBytes, parseIP, formatIP } from '../../ip';
import { CodedError } from '../../errors/coded-error';

/** A socket address: host (canonical IP text) and port. The state machine uses raw Addr bytes instead (swim/address.ts). */
export interface HostPort {
  readonly host: string;
  readonly port: number;
}

/** memberlist's default bind port (MetalLB's --ml-bind-port default too). */
const DEFAULT_GOSSIP_PORT = 7946;

class AddressError extends CodedError<'badAddress'> {
  constructor(message: string) {
    super('badAddress', message);
  }
}

/**
 * Reads "host:port", "[v6]:port", "host" (default port) or memberlist's "name/host:port" join form.
 * Only IP literals: a daemon that resolves names at join time fails in confusing ways when DNS is down.
 */
export function parseHostPort(text: string, defaultPort = DEFAULT_GOSSIP_PORT): HostPort {
  const withoutName = text.includes('/') ? text.slice(text.indexOf('/') + 1) : text;
  let host = withoutName;
  let port = defaultPort;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(withoutName);
  if (bracketed) {
    host = bracketed[1] as string;
    if (bracketed[2] !== undefined) port = Number(bracketed[2]);
  } else if (withoutName.split(':').length === 2) {
    const [h, p] = withoutName.split(':') as [string, string];
    host = h;
    port = /^\d+$/.test(p) ? Number(p) : Number.NaN;
  }
  const ip = parseIP(host);
  if (!ip) throw new AddressError(`"${text}" is not HOST:PORT with an IP address (IPv6 as [addr]:port)`);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new AddressError(`"${text}": port must be 1-65535`);
  return { host: formatIP(ip), port };
}

/** "host:port", IPv6 hosts in brackets (RFC 3986 section 3.2.2): only IPv6 text contains a colon. */
export function formatHostPort(a: HostPort): string {
  return a.host.includes(':') ? `[${a.host}]:${a.port}` : `${a.host}:${a.port}`;
}

/**
 * The Addr bytes memberlist sends for a node: 4 bytes for IPv4, 16 for IPv6 (docs/memberlist-wire.md section 1).
 * Go compares them byte for byte, so a node always sends its own address in the same form.
 */
export function addressBytes(host: string): Uint8Array {
  const ip = parseIP(host);
  if (!ip) throw new AddressError(`"${host}" is not an IP address`);
  return ipToBytes(ip);
}

/** The host text of memberlist Addr bytes (IPv4-mapped 16-byte forms read as IPv4). */
export function hostFromBytes(bytes: Uint8Array): string | undefined {
  if (bytes.length !== 4 && bytes.length !== 16) return undefined;
  return formatIP(ipFromBytes(bytes));
}
