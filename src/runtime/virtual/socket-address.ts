import type { SocketAddress } from '../runtime';

/** "10.0.0.1:7946" or "[fd00::1]:7946", for error messages. */
export function addressText(a: SocketAddress): string {
  return a.host.includes(':') ? `[${a.host}]:${a.port}` : `${a.host}:${a.port}`;
}
