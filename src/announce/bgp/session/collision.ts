/**
 * Connection collision resolution (RFC 4271 6.8, RFC 6286 2.3): when the peer and we both opened a connection and
 * an OPEN arrives on one while the other already holds the peer's OPEN, the connection initiated by the side with
 * the higher BGP identifier survives; with equal identifiers (allowed between ASes), the side with the larger ASN.
 * Both peers compute the same answer from the same two OPENs, so they close the same connection. Pure.
 */
import { routerIdValue } from './session-config';

/** Who initiated a connection: we dialed it (outbound) or the peer did and our listener accepted it (inbound). */
export type ConnectionOrigin = 'outbound' | 'inbound';

export type CollisionReason = 'localIdentifierHigher' | 'remoteIdentifierHigher' | 'localAsnHigher' | 'remoteAsnHigher';

export interface CollisionVerdict {
  /** The connection that stays; the other gets NOTIFICATION Cease / Connection Collision Resolution. */
  readonly keep: ConnectionOrigin;
  readonly reason: CollisionReason;
}

/** Identifiers compare as unsigned 32-bit integers in host order (RFC 4271 6.8 step 1). */
export function resolveCollision(localId: string, remoteId: string, localAsn: number, remoteAsn: number): CollisionVerdict {
  const local = routerIdValue(localId) ?? 0;
  const remote = routerIdValue(remoteId) ?? 0;
  if (local > remote) return { keep: 'outbound', reason: 'localIdentifierHigher' };
  if (local < remote) return { keep: 'inbound', reason: 'remoteIdentifierHigher' };
  return localAsn > remoteAsn ? { keep: 'outbound', reason: 'localAsnHigher' } : { keep: 'inbound', reason: 'remoteAsnHigher' };
}
