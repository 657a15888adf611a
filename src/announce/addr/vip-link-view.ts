/**
 * The binder's view of mlb0's addresses, kept without dumping every address of the host at each reconcile: set
 * from one dump when the link is opened or made, then changed by the binder's own requests as each succeeds, and
 * by the kernel's notifications (RTM_NEWADDR/RTM_DELADDR, rtnetlink(7)) for everything else.
 *
 * A notification either echoes one of the binder's own requests (counted when the request goes out, so an echo
 * read late, after a newer request, is still recognised) or reports a change someone else made: `ip addr del` of
 * a VIP, `ip addr add` of a stranger, the link deleted. noticed() says which, and whether that change departs
 * from what the binder was last asked for: the binder then reconciles again.
 */
import type { IP } from '../../ip';
import { VIP_PREFIX, vipKeyOf, type BoundAddress } from './vip-plan';

export type ForeignChange = 'desiredRemoved' | 'notDesiredAdded';

export interface AddressNotice {
  readonly address: BoundAddress;
  readonly present: boolean;
}

const addressKey = (a: BoundAddress): string => `${vipKeyOf(a.ip)}/${a.prefix}`;
const echoKey = (a: BoundAddress, present: boolean): string => `${addressKey(a)}|${present ? '+' : '-'}`;

export class VipLinkView {
  private readonly onLink = new Map<string, BoundAddress>();
  /** Notifications still expected for the binder's own requests, by address and direction. */
  private readonly echoes = new Map<string, number>();
  private desired: ReadonlySet<number | string> = new Set();

  /** The link as a dump found it (open, or a link made again): what was known before is forgotten. */
  reset(addresses: readonly BoundAddress[]): void {
    this.onLink.clear();
    this.echoes.clear();
    for (const a of addresses) this.onLink.set(addressKey(a), a);
  }

  addresses(): BoundAddress[] {
    return [...this.onLink.values()];
  }

  /** The distinct IPs on the link. */
  ips(): IP[] {
    const out = new Map<number | string, IP>();
    for (const a of this.onLink.values()) out.set(vipKeyOf(a.ip), a.ip);
    return [...out.values()];
  }

  /** What the binder was last asked to hold (each as a single address, VIP_PREFIX). */
  want(desired: readonly IP[]): void {
    this.desired = new Set(desired.map(vipKeyOf));
  }

  /** A request of ours is about to go out: its notification is an echo. */
  expect(address: BoundAddress, present: boolean): void {
    const key = echoKey(address, present);
    this.echoes.set(key, (this.echoes.get(key) ?? 0) + 1);
  }

  /**
   * The request's outcome: `changed` when the kernel changed the link (its echo will come), `already` when the
   * link was already so, `failed` when the kernel refused (no notification comes for either of the last two).
   */
  settled(address: BoundAddress, present: boolean, outcome: 'changed' | 'already' | 'failed'): void {
    if (outcome !== 'failed') {
      if (present) this.onLink.set(addressKey(address), address);
      else this.onLink.delete(addressKey(address));
    }
    if (outcome !== 'changed') this.forgetEcho(echoKey(address, present));
  }

  /** A notification for mlb0: undefined when it is ours or agrees with what was asked, else the foreign change. */
  noticed(notice: AddressNotice): ForeignChange | undefined {
    const echo = echoKey(notice.address, notice.present);
    if (this.echoes.has(echo)) {
      this.forgetEcho(echo);
      return undefined;
    }
    const key = addressKey(notice.address);
    if (notice.present) this.onLink.set(key, notice.address);
    else this.onLink.delete(key);
    const wanted = this.desired.has(vipKeyOf(notice.address.ip)) && notice.address.prefix === VIP_PREFIX[notice.address.ip.family];
    if (wanted === notice.present) return undefined;
    return notice.present ? 'notDesiredAdded' : 'desiredRemoved';
  }

  private forgetEcho(key: string): void {
    const n = (this.echoes.get(key) ?? 0) - 1;
    if (n > 0) this.echoes.set(key, n);
    else this.echoes.delete(key);
  }
}
