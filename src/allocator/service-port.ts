/**
 * One (protocol, port) a service uses on its address: what IP sharing compares (sharing.ts) and what an
 * allocation error names (allocation-errors.ts), so it sits below both.
 */

/** One port a service uses on its address (MetalLB allocator.Port). */
export interface Port {
  readonly protocol: string;
  readonly port: number;
}

/** "TCP/80", as MetalLB's Port.String(). */
export function formatPort(p: Port): string {
  return `${p.protocol}/${p.port}`;
}

export function samePort(a: Port, b: Port): boolean {
  return a.protocol === b.protocol && a.port === b.port;
}
