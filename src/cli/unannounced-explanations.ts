/**
 * `mlb explain`'s exit status: 1 when nobody announces an IP it was asked about (or, with no target, any IP), so a
 * script or a monitoring check can branch on `mlb explain 192.168.10.200` alone. The explanation is printed first;
 * this only adds one stderr line per such IP and the status.
 */
import type { Explanation } from '../election';
import { ExitCode } from './exit-codes';

/** layer2 has one winner, BGP any number of announcing nodes; nobody means no client reaches the IP. */
function isAnnounced(e: Explanation): boolean {
  return e.protocol === 'layer2' ? e.winner !== null : e.announcing.length > 0;
}

/** "nobody announces 192.168.10.210 (demo/dns-tcp, demo/dns-udp)": one line per IP, services sharing it together. */
function unannouncedLines(explanations: readonly Explanation[]): string[] {
  const byIP = new Map<string, string[]>();
  for (const e of explanations) {
    if (!isAnnounced(e)) byIP.set(e.ip, [...new Set([...(byIP.get(e.ip) ?? []), e.service])]);
  }
  return [...byIP].map(([ip, services]) => `nobody announces ${ip} (${services.join(', ')}): the reasons are above`);
}

/** Says which IPs nobody announces and makes the command exit 1; nothing when every IP has an announcer. */
export function reportUnannounced(explanations: readonly Explanation[]): void {
  const lines = unannouncedLines(explanations);
  if (lines.length === 0) return;
  process.stderr.write(lines.map((l) => `mlb: ${l}\n`).join(''));
  process.exitCode = ExitCode.failure;
}
