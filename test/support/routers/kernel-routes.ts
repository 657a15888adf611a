/**
 * What a namespace's kernel forwards with: the next hops of one route, read from `ip -j route show`. Routers
 * differ in what they say they installed; the kernel's table is the ground truth an ECMP test wants.
 */
import { ipVersionOfText } from '../../../src/cli/lab/route-path';
import { execInNetns, RouterError, type NetnsTarget } from '../../../src/cli/lab/router-shell';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The gateways of the routes whose dst is exactly `prefix` (a single-path route has `gateway`; a multipath one
 * has `nexthops`). iproute2 prints a host route's dst without its length, so both spellings are accepted.
 */
export function parseIpRouteJson(json: unknown, prefix: string): string[] {
  if (!Array.isArray(json)) throw new RouterError('badOutput', `ip -j route did not print a list: ${JSON.stringify(json).slice(0, 200)}`);
  const [address, length] = prefix.split('/');
  const hostLength = ipVersionOfText(prefix) === 6 ? '128' : '32';
  const matches = (dst: unknown) => dst === prefix || (length === hostLength && dst === address);
  const hops: string[] = [];
  for (const route of json) {
    if (!isObject(route) || !matches(route.dst)) continue;
    if (typeof route.gateway === 'string') hops.push(route.gateway);
    for (const hop of Array.isArray(route.nexthops) ? route.nexthops : []) {
      if (isObject(hop) && typeof hop.gateway === 'string') hops.push(hop.gateway);
    }
  }
  return [...new Set(hops)].sort();
}

export function kernelNextHops(host: NetnsTarget, prefix: string): string[] {
  const family = ipVersionOfText(prefix) === 6 ? '-6' : '-4';
  const text = execInNetns(host, 'ip', [family, '-j', 'route', 'show', 'exact', prefix]);
  return parseIpRouteJson(JSON.parse(text.trim() === '' ? '[]' : text), prefix);
}
