/**
 * The sentences of `mlb lab demo --bgp`, from facts to text: what FRR says of the sessions and of the service's
 * route, how the client's requests spread, how fast a dead node's path left the router. Pure, so what a user reads
 * is tested without a lab; bgp-demo.ts decides what happened, this file only says it.
 */
import { bfdDetectionMs } from './lab-bgp';
import { seconds } from './narration';
import type { ProbeSample } from './probe-samples';

/** A lab host as the narration names it. */
export interface NamedHost {
  readonly name: string;
  readonly ipv4: string;
}

/** "node-1 172.31.213.11", or the bare address when no lab host has it. */
export function hostText(hosts: readonly NamedHost[], address: string): string {
  const host = hosts.find((h) => h.ipv4 === address);
  return host ? `${host.name} ${address}` : address;
}

/** "a, b and c". */
export function listText(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? 'nothing';
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** `holdTimeMs`: what bgpd negotiated (the same for every node: one BGPPeer). */
export function sessionsText(hosts: readonly NamedHost[], established: readonly string[], holdTimeMs?: number): string {
  const hold = holdTimeMs !== undefined ? ` (hold time ${Math.round(holdTimeMs / 1000)} s)` : '';
  return `FRR (show bgp summary): sessions Established with ${listText(established.map((a) => hostText(hosts, a)))}${hold}`;
}

/** bfdd's sessions: which are up, and what that buys (the detection time). */
export function bfdText(
  hosts: readonly NamedHost[],
  up: readonly string[],
  expected: number,
  bfd: { readonly receiveMs: number; readonly multiplier: number },
): string {
  const who = up.length === 0 ? 'no node' : listText(up.map((a) => hostText(hosts, a)));
  const missing = up.length < expected ? ` (${expected - up.length} of ${expected} not up)` : '';
  return (
    `bfdd (show bfd peers): BFD up with ${who}${missing}, ${bfd.receiveMs} ms x ${bfd.multiplier}: ` +
    `a silent node is declared down after ${seconds(bfdDetectionMs(bfd))} s`
  );
}

export function ecmpText(hosts: readonly NamedHost[], service: string, prefix: string, nextHops: readonly string[]): string {
  const kind = nextHops.length > 1 ? ' (ECMP: the router spreads traffic over every node)' : '';
  return (
    `zebra (show ip route ${prefix} json): ${service}'s ${prefix} installed with ${nextHops.length} next ` +
    `hop${nextHops.length === 1 ? '' : 's'}, ${listText(nextHops.map((h) => hostText(hosts, h)))}${kind}`
  );
}

/** "node-1 (22), node-2 (18)": who answered the client's requests, by node name, in name order. */
export function answersByNode(samples: readonly ProbeSample[]): string {
  const counts = new Map<string, number>();
  for (const s of samples) if (s.ok && s.node !== undefined) counts.set(s.node, (counts.get(s.node) ?? 0) + 1);
  return [...counts]
    .sort(([a], [b]) => a.localeCompare(b, undefined, { numeric: true }))
    .map(([n, c]) => `${n} (${c})`)
    .join(', ');
}

export interface ThroughRouterFacts {
  readonly subnet: string;
  readonly router: NamedHost;
  readonly url: string;
  readonly samples: readonly ProbeSample[];
}

export function throughRouterText(f: ThroughRouterFacts): string {
  const ok = f.samples.filter((s) => s.ok).length;
  const failed = f.samples.length - ok;
  return (
    `the client routes ${f.subnet} via the ${f.router.name} ${f.router.ipv4}: ${f.samples.length} requests to ${f.url}` +
    ` answered by ${answersByNode(f.samples) || 'nobody'}${failed > 0 ? `; ${failed} failed` : ''}`
  );
}

export interface WithdrawalFacts {
  readonly node: string;
  readonly withdrawnAfterMs: number;
  /** bgpd's reason for ending the session, when it says ("BGP Notification send: Cease/BFD Down"). */
  readonly reason?: string;
  readonly detectionMs: number;
  readonly holdTimeMs?: number;
  readonly remaining: readonly string[];
}

export function withdrawalText(hosts: readonly NamedHost[], f: WithdrawalFacts): string {
  const why = f.reason ? ` (bgpd: ${f.reason})` : '';
  const hold = f.holdTimeMs !== undefined ? `, not the ${Math.round(f.holdTimeMs / 1000)} s hold time` : '';
  return (
    `FRR withdrew ${f.node}'s path ${seconds(f.withdrawnAfterMs)} s later${why}: BFD's ${seconds(f.detectionMs)} s detection${hold};` +
    ` next hops now ${listText(f.remaining.map((h) => hostText(hosts, h)))}`
  );
}

/** What the client felt meanwhile: requests that failed between the link going down and the withdrawal. */
export function meanwhileText(failed: number, answered: number): string {
  if (failed === 0) return `the client lost no request meanwhile (${answered} answered)`;
  return `the client: ${failed} request${failed === 1 ? '' : 's'} failed meanwhile (those the router still sent to the dead node), ${answered} answered`;
}

/**
 * bgpd's words for why a session ended: "Cease/BFD Down notification sent" when bgpd itself ended it with a
 * NOTIFICATION (its reset reason is then "BGP Notification send"), else the reset reason as bgpd says it.
 */
export function resetReasonText(reason: string | undefined, notification: string | undefined): string | undefined {
  const sent = reason !== undefined && /^BGP Notification (send|sent)$/i.test(reason);
  const received = reason !== undefined && /^BGP Notification received$/i.test(reason);
  if (notification && (sent || received)) return `${notification} notification ${sent ? 'sent' : 'received'}`;
  if (reason && notification) return `${reason}; last notification ${notification}`;
  return reason ?? notification;
}

export function returnText(
  hosts: readonly NamedHost[],
  node: string,
  establishedMs: number,
  pathMs: number,
  nextHops: readonly string[],
): string {
  return (
    `${node}'s session is Established again ${seconds(establishedMs)} s after its link came up, and its path is back in zebra` +
    ` ${seconds(pathMs)} s later; next hops ${listText(nextHops.map((h) => hostText(hosts, h)))}`
  );
}
