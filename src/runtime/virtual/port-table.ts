/**
 * One host's ports of one protocol (UDP or TCP): who is bound to which address and port, with the kernel's rules
 * for conflicts (the same port on the same address, or on a wildcard, is taken) and for port 0 (the next free
 * ephemeral port, in order, so a seeded run picks the same ports every time).
 */

/** Linux's default ip_local_port_range: where port 0 and client connections take their ports. */
const EPHEMERAL_PORT_FIRST = 32_768;
const EPHEMERAL_PORT_LAST = 60_999;

/** Wildcard binds: '0.0.0.0' takes every IPv4 address; '::' every address (Node's udp6/tcp are dual-stack). */
const IPV4_ANY = '0.0.0.0';
const IPV6_ANY = '::';

export function isIpv6(ip: string): boolean {
  return ip.includes(':');
}

export function isWildcard(ip: string): boolean {
  return ip === IPV4_ANY || ip === IPV6_ANY;
}

/** Whether a socket bound to `bound` receives what is sent to `ip`. */
function covers(bound: string, ip: string): boolean {
  return bound === ip || bound === IPV6_ANY || (bound === IPV4_ANY && !isIpv6(ip));
}

interface Binding<T> {
  readonly ip: string;
  /** Undefined for a client connection's local port: taken, but nothing listens there. */
  readonly value: T | undefined;
}

export class PortTable<T> {
  private readonly byPort = new Map<number, Binding<T>[]>();
  private cursor = EPHEMERAL_PORT_FIRST;

  /** Binds `value` to ip:port (0: a free ephemeral port); returns the port, or undefined when taken or none is free. */
  bind(ip: string, port: number, value: T | undefined): number | undefined {
    const chosen = port === 0 ? this.freePort() : port;
    if (chosen === undefined) return undefined;
    const bindings = this.byPort.get(chosen) ?? [];
    if (bindings.some((b) => covers(b.ip, ip) || covers(ip, b.ip))) return undefined;
    bindings.push({ ip, value });
    this.byPort.set(chosen, bindings);
    return chosen;
  }

  /** What receives traffic for ip:port: an exact bind first, then a wildcard. */
  lookup(ip: string, port: number): T | undefined {
    const bindings = this.byPort.get(port) ?? [];
    const found =
      bindings.find((b) => b.ip === ip && b.value !== undefined) ?? bindings.find((b) => b.value !== undefined && covers(b.ip, ip));
    return found?.value;
  }

  release(ip: string, port: number): void {
    const rest = (this.byPort.get(port) ?? []).filter((b) => b.ip !== ip);
    if (rest.length > 0) this.byPort.set(port, rest);
    else this.byPort.delete(port);
  }

  private freePort(): number | undefined {
    const span = EPHEMERAL_PORT_LAST - EPHEMERAL_PORT_FIRST + 1;
    for (let i = 0; i < span; i++) {
      const port = this.cursor;
      this.cursor = port === EPHEMERAL_PORT_LAST ? EPHEMERAL_PORT_FIRST : port + 1;
      if (!this.byPort.has(port)) return port;
    }
    return undefined;
  }
}
