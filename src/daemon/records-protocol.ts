/**
 * Which version of mlb's own gossip records (records/) each node understands, so a rolling upgrade can
 * change them without splitting the cluster. Every node advertises MLB_RECORDS_VERSION in its node meta
 * (gossip/node-meta.ts); the cluster's usable version is the lowest one any live mlb member advertises.
 *
 * How to change a record (the rule every future change follows):
 * - A new record kind, or a new format of an existing one, gets the next MLB_RECORDS_VERSION and is sent only
 *   while recordsVersionInUse() of the live members is at least that version (records/records-wire.ts). Until
 *   the last old node is upgraded, the node keeps sending the older form (or nothing, for a new kind), and it
 *   decodes every form it ever wrote (records/records-codec.ts).
 * - A receiver never fails on what it does not know: unknown kinds are skipped and counted
 *   (mlb_gossip_record_drops_total{reason="unknownKind"}), a damaged record is counted under its own reason.
 * - Within one form, a record's fields are append-only too: a decoder ignores fields after those it knows.
 * - Record kinds are append-only; a number never changes meaning. The v1 layout's own header version
 *   (records/legacy-records.ts) is not this one: a decoder refuses a header version it does not know, so bumping
 *   that would make old nodes drop every record. It stays 1.
 * Pure.
 */
import type { NodeMeta } from '../gossip/node-meta';

/**
 * 1: record kinds 1..6 (health reports, allocation table, configuration facts, conflict reports, drain requests,
 * health details) in the v1 layout (records/legacy-records.ts), each kind in a hand-made layout of its own.
 * 2: the same kinds in one msgpack envelope (records/records-envelope.ts); a node still reads the v1 layout.
 */
export const MLB_RECORDS_VERSION = 2;

/**
 * What an mlb node that advertises no version understands. Releases before the field know kinds 1..4 at least
 * (drain requests and health details came later): anything that needs more waits for them to be upgraded.
 */
export const UNVERSIONED_RECORDS_VERSION = 0;

/** The version a member's meta says it understands (undefined meta: not mlb, understands none of our records). */
export function recordsVersionOf(meta: NodeMeta): number {
  return meta.recordsVersion ?? UNVERSIONED_RECORDS_VERSION;
}

/**
 * The newest records version every live mlb member understands (this node's own included), so a sender may use
 * a format only when this is at least that format's version. Members that are not mlb (MetalLB speakers) never
 * read our records and do not lower it.
 */
export function recordsVersionInUse(liveMlbMembers: readonly NodeMeta[], own = MLB_RECORDS_VERSION): number {
  return liveMlbMembers.reduce((lowest, meta) => Math.min(lowest, recordsVersionOf(meta)), own);
}

/**
 * The release text a node advertises: `mlb version`'s version, with the commit when the build names one (two
 * builds of one package version, as in a test of unreleased commits, stay apart).
 */
export function releaseText(build: { readonly version: string; readonly commit: string }): string {
  return /^[0-9a-f]{7,40}(-dirty)?$|^dev$/.test(build.commit) ? `${build.version}+${build.commit}` : build.version;
}
