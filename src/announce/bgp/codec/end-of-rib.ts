/**
 * The End-of-RIB marker (RFC 4724 section 2): after the initial table, a speaker sends, per family, an UPDATE
 * that announces and withdraws nothing. For IPv4 unicast it is the empty UPDATE (no withdrawn routes, no
 * attributes, no NLRI: 23 octets); for any other family it is an UPDATE holding only an MP_UNREACH_NLRI with that
 * AFI/SAFI and no withdrawn routes.
 */
import { Afi, Safi, type BgpUpdate } from '../bgp-messages';

export function endOfRib(afi: number, safi: number): BgpUpdate {
  if (afi === Afi.ipv4 && safi === Safi.unicast) return { type: 'update', withdrawn: [], attributes: {}, nlri: [] };
  return { type: 'update', withdrawn: [], attributes: { mpUnreach: { afi, safi, withdrawn: [] } }, nlri: [] };
}

/** The family an End-of-RIB marker closes, or undefined when the UPDATE is not one. */
export function endOfRibFamily(update: BgpUpdate): { readonly afi: number; readonly safi: number } | undefined {
  // A decoded UPDATE emptied by RFC 7606 (a malformed attribute dropped) only looks like a marker.
  if (update.treatAsWithdraw || (update.discardedAttributes?.length ?? 0) > 0) return undefined;
  if (update.withdrawn.length > 0 || update.nlri.length > 0) return undefined;
  const { mpUnreach, ...rest } = update.attributes;
  const nothingElse = Object.values(rest).every((value) => value === undefined);
  if (!nothingElse) return undefined;
  if (mpUnreach === undefined) return { afi: Afi.ipv4, safi: Safi.unicast };
  return mpUnreach.withdrawn.length === 0 ? { afi: mpUnreach.afi, safi: mpUnreach.safi } : undefined;
}

export function isEndOfRib(update: BgpUpdate): boolean {
  return endOfRibFamily(update) !== undefined;
}
