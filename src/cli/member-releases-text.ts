/**
 * `mlb status --once`'s "releases" line during a rolling upgrade: which live mlb members run which release, and
 * the gossip records version the cluster is held to until the last old node is upgraded (records-protocol.ts).
 * Nothing while every live member runs the same release: the line is for the upgrade, not for every day. Pure.
 */
import type { ControlStatus } from '../daemon/control/control-snapshot';

/** How a member that advertises no release is named: an mlb release older than the field. */
const UNVERSIONED_RELEASE_TEXT = 'older (no version)';

export function memberReleasesText(s: ControlStatus): string | undefined {
  const live = s.members.filter((m) => m.state === 'alive' && m.version !== undefined);
  const byRelease = new Map<string, string[]>();
  for (const m of live) {
    const release = m.version!.release ?? UNVERSIONED_RELEASE_TEXT;
    byRelease.set(release, [...(byRelease.get(release) ?? []), m.name]);
  }
  if (byRelease.size < 2) return undefined;
  const groups = [...byRelease]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([release, names]) => `${release} (${names.sort().join(', ')})`);
  const records = Math.min(...live.map((m) => m.version!.records));
  return `mixed: ${groups.join('; ')}; gossip records version ${records} until all run one release`;
}
