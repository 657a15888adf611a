/**
 * What every decoder of received bytes returns (L2 frames, BFD packets; gossip packets list their drops the same
 * way): the value, or a drop with its reason from the protocol's stable table and a short detail for debug logs
 * (never for matching). A union rather than an exception, because a receive loop at 10k frames/s drops most of
 * what it sees, and each drop is counted by reason.
 */

/** Why received bytes were dropped: a reason from the protocol's table, and a detail for debug logs. */
export interface Drop<R extends string> {
  readonly reason: R;
  readonly detail?: string;
}

export type Decoded<T, R extends string> = { readonly ok: true; readonly value: T } | ({ readonly ok: false } & Drop<R>);

export function decoded<T>(value: T): { readonly ok: true; readonly value: T } {
  return { ok: true, value };
}

export function dropped<R extends string>(reason: R, detail?: string): { readonly ok: false } & Drop<R> {
  return detail === undefined ? { ok: false, reason } : { ok: false, reason, detail };
}
