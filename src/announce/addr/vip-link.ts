/**
 * The VIP interface over rtnetlink (the `netlink` package, as interfaces/netlink-links.ts uses it): make mlb0 if
 * it is missing, bring it up, list its addresses, add and remove single addresses. A thin adapter: what to add
 * and remove is vip-plan.ts's decision, and VipBinder logs.
 *
 * Everything goes through the package: RTM_NEWLINK takes IFLA_LINKINFO as raw bytes, which the package's own
 * ifla.formatInfo encodes, so `ip link add mlb0 type dummy` is never needed (and would fail the same way where
 * the kernel lacks the driver).
 *
 * Link kind. A dummy device is the usual home for local-only addresses: IFF_NOARP, and it drops whatever is sent
 * through it. Some kernels are built without CONFIG_DUMMY and without modules (minimal VM kernels; the machine
 * these tests were written on runs one), and RTM_NEWLINK with kind "dummy" then fails with EOPNOTSUPP. ifb is the
 * fallback: also IFF_NOARP, and it drops every frame not redirected to it by a tc action, which mlb never sets up.
 * Both are skipped by the L2 interface selection (MetalLB's filters drop NOARP links), so mlb0 is never chosen
 * to announce from although its /32 "subnet" contains the VIP.
 */
import { requireNetlink } from '../../native/netlink-module';
import type * as Netlink from 'netlink';
import { ipFromBytes, ipToBytes, type IP } from '../../ip';
import { VipBindError, errnoOf, vipBindErrorFrom } from './vip-bind-error';
import { VIP_PREFIX, formatBoundAddress, type BoundAddress } from './vip-plan';

/** Link kinds mlb makes, in order of preference (see the header); an existing mlb0 of another kind is refused. */
export const VIP_LINK_KINDS = ['dummy', 'ifb'] as const;
export type VipLinkKind = (typeof VIP_LINK_KINDS)[number];

/** A netlink request that the kernel leaves unanswered this long has failed (it normally answers in microseconds). */
const NETLINK_REQUEST_TIMEOUT_MS = 5_000;
/**
 * SO_RCVBUF of the request socket: a batch of answers waits there until the event loop reads it. Asked for 1 MiB;
 * the kernel grants at most net.core.rmem_max (208 KiB by default, doubled for its bookkeeping), which
 * VIP_NETLINK_BATCH is sized for.
 */
const NETLINK_RECEIVE_BUFFER_BYTES = 1 << 20;

const AF_INET = 2;
const AF_INET6 = 10;
/** IN6_ADDR_GEN_MODE_NONE: no link-local address on mlb0 (it would be one more address that is not a VIP). */
const IN6_ADDR_GEN_MODE_NONE = 1;
/** The kernel's "no such driver" answer to RTM_NEWLINK (node names EOPNOTSUPP "ENOTSUP"). */
const KIND_UNSUPPORTED = new Set(['ENOTSUP', 'EOPNOTSUPP']);

type NetlinkModule = typeof Netlink;
let loaded: NetlinkModule | undefined;
function netlinkModule(): NetlinkModule {
  if (!loaded) {
    try {
      loaded = requireNetlink();
    } catch (error) {
      throw new VipBindError('netlinkUnavailable', `the netlink package cannot be loaded: ${(error as Error).message}`, { cause: error });
    }
  }
  return loaded;
}

export interface VipLinkState {
  readonly index: number;
  readonly kind: VipLinkKind;
  /** This call made the link (it was missing). */
  readonly created: boolean;
  /** The kind tried first was refused by the kernel (errno), so a later one was made. */
  readonly fallbackFrom?: { readonly kind: VipLinkKind; readonly errno: string };
}

const REQUEST = { timeout: NETLINK_REQUEST_TIMEOUT_MS };

export class VipLink {
  private closed = false;

  private constructor(
    readonly name: string,
    private readonly nl: NetlinkModule,
    private readonly socket: Netlink.RtNetlinkSocket,
  ) {}

  /**
   * `onSocketError`: asynchronous socket trouble (ENOBUFS: answers were dropped, and the requests they answered
   * fail by timeout, each reported with its VIP). Without a listener the package's 'error' event would throw
   * inside its native callback and abort the process.
   */
  static open(name: string, onSocketError: (error: Error) => void = () => {}): VipLink {
    const nl = netlinkModule();
    const socket = nl.createRtNetlink();
    socket.socket.on('error', onSocketError);
    // Room for a batch's answers (vip-batch.ts); the kernel caps it at net.core.rmem_max.
    socket.socket.setRecvBufferSize(NETLINK_RECEIVE_BUFFER_BYTES);
    socket.socket.unref();
    return new VipLink(name, nl, socket);
  }

  /**
   * Finds mlb0 (making it if missing), checks it is a kind mlb makes, turns off IPv6 link-local generation and
   * sets it up. Safe to call before every reconcile: it also repairs a link someone deleted or set down.
   */
  async ensure(): Promise<VipLinkState> {
    this.checkOpen();
    let existing = await this.find();
    let created = false;
    let fallbackFrom: VipLinkState['fallbackFrom'];
    if (!existing) {
      fallbackFrom = await this.create();
      created = true;
      existing = await this.find();
      if (!existing) throw new VipBindError('linkFailed', `${this.name} was created but cannot be found`);
    }
    const { index, kind } = existing;
    if (!kind || !(VIP_LINK_KINDS as readonly string[]).includes(kind)) {
      throw new VipBindError(
        'notOurInterface',
        `${this.name} exists and is a ${kind ?? 'device of no kind'} (not ${VIP_LINK_KINDS.join(' or ')}); mlb leaves it alone`,
        { subject: this.name },
      );
    }
    await this.turnOffLinkLocal(index);
    try {
      if (!existing.up) await this.socket.setLink({ index, flags: { up: true }, change: { up: true } }, {}, REQUEST);
    } catch (error) {
      throw vipBindErrorFrom('linkFailed', `cannot set ${this.name} up`, error, this.name);
    }
    return { index, kind: kind as VipLinkKind, created, ...(fallbackFrom ? { fallbackFrom } : {}) };
  }

  /** Every address on the link (IPv4 and IPv6), with its prefix. */
  async addresses(index: number): Promise<BoundAddress[]> {
    this.checkOpen();
    let messages: Netlink.rt.AddressMessage[];
    try {
      messages = await this.socket.getAddresses(undefined, undefined, REQUEST);
    } catch (error) {
      throw vipBindErrorFrom('addressListFailed', `cannot list the addresses of ${this.name}`, error, this.name);
    }
    const out: BoundAddress[] = [];
    for (const m of messages) {
      if (m.data.index !== index || (m.data.family !== AF_INET && m.data.family !== AF_INET6)) continue;
      const bytes = m.attrs.local ?? m.attrs.address;
      if (!bytes || bytes.length !== (m.data.family === AF_INET ? 4 : 16)) continue;
      const ip = ipFromBytes(new Uint8Array(bytes));
      out.push({ ip, prefix: m.data.prefixlen ?? VIP_PREFIX[ip.family] });
    }
    return out;
  }

  /**
   * Adds a VIP as a single address, IPv6 with IFA_F_NODAD: Duplicate Address Detection would hold it tentative
   * (unusable) for a second, and duplicates are the election's business, not DAD's. Already there is success.
   */
  async add(index: number, ip: IP): Promise<'added' | 'alreadyBound'> {
    this.checkOpen();
    const prefix = VIP_PREFIX[ip.family];
    const bytes = Buffer.from(ipToBytes(ip));
    const flags: Netlink.rt.AddressFlags = ip.family === 6 ? { nodad: true } : {};
    try {
      await this.socket.newAddress(
        { family: ip.family === 4 ? AF_INET : AF_INET6, prefixlen: prefix, index, flags },
        { local: bytes, address: bytes, flags },
        { ...REQUEST, flags: this.nl.FlagsNew.CREATE | this.nl.FlagsNew.EXCL },
      );
      return 'added';
    } catch (error) {
      if (errnoOf(error) === 'EEXIST') return 'alreadyBound';
      throw vipBindErrorFrom(
        'addressAddFailed',
        `cannot add ${formatBoundAddress({ ip, prefix })} to ${this.name}`,
        error,
        formatBoundAddress({ ip, prefix }),
      );
    }
  }

  /** Removes one address (with the prefix it has: an IPv6 delete matches on it). Already gone is success. */
  async remove(index: number, address: BoundAddress): Promise<'removed' | 'alreadyGone'> {
    this.checkOpen();
    const bytes = Buffer.from(ipToBytes(address.ip));
    try {
      await this.socket.delAddress(
        { family: address.ip.family === 4 ? AF_INET : AF_INET6, prefixlen: address.prefix, index },
        { local: bytes, address: bytes },
        REQUEST,
      );
      return 'removed';
    } catch (error) {
      if (errnoOf(error) === 'EADDRNOTAVAIL' || errnoOf(error) === 'ENODEV') return 'alreadyGone';
      throw vipBindErrorFrom(
        'addressRemoveFailed',
        `cannot remove ${formatBoundAddress(address)} from ${this.name}`,
        error,
        formatBoundAddress(address),
      );
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.socket.socket.close();
  }

  private checkOpen(): void {
    if (this.closed) throw new VipBindError('closed', `${this.name}: the netlink socket is closed`);
  }

  private async find(): Promise<{ index: number; kind: string | undefined; up: boolean } | undefined> {
    let links: Netlink.rt.LinkMessage[];
    try {
      links = await this.socket.getLink({}, { ifname: this.name }, REQUEST);
    } catch (error) {
      if (errnoOf(error) === 'ENODEV') return undefined;
      throw vipBindErrorFrom('linkFailed', `cannot look up ${this.name}`, error, this.name);
    }
    const link = links[0];
    if (link?.data.index === undefined) return undefined;
    const kind = link.attrs.linkinfo ? this.nl.ifla.parseInfo(link.attrs.linkinfo).kind : undefined;
    return { index: link.data.index, kind, up: link.data.flags?.up === true };
  }

  /** RTM_NEWLINK for each kind in turn until the kernel has a driver for one. */
  private async create(): Promise<VipLinkState['fallbackFrom']> {
    let refused: VipLinkState['fallbackFrom'];
    for (const kind of VIP_LINK_KINDS) {
      try {
        await this.socket.newLink(
          {},
          { ifname: this.name, linkinfo: this.encode(this.nl.ifla.formatInfo({ kind })) },
          { ...REQUEST, flags: this.nl.FlagsNew.CREATE | this.nl.FlagsNew.EXCL },
        );
        return refused;
      } catch (error) {
        const errno = errnoOf(error);
        if (errno === 'EEXIST') return refused; // made by someone else meanwhile: ensure() checks its kind
        if (errno !== undefined && KIND_UNSUPPORTED.has(errno)) {
          refused ??= { kind, errno };
          continue;
        }
        throw vipBindErrorFrom('linkFailed', `cannot create ${this.name} (kind ${kind})`, error, this.name);
      }
    }
    throw new VipBindError(
      'linkKindUnsupported',
      `this kernel has no ${VIP_LINK_KINDS.join(' or ')} driver (CONFIG_DUMMY, CONFIG_IFB): cannot create ${this.name}`,
      { subject: this.name },
    );
  }

  /**
   * Before up, so the kernel never generates a link-local; repeated each time (idempotent) for an mlb0 made by
   * someone else or by an older mlb. A host booted without IPv6 answers EAFNOSUPPORT: nothing to turn off.
   */
  private async turnOffLinkLocal(index: number): Promise<void> {
    try {
      await this.socket.setLink({ index }, { afSpec: this.noLinkLocal() }, REQUEST);
    } catch (error) {
      if (errnoOf(error) !== 'EAFNOSUPPORT')
        throw vipBindErrorFrom('linkFailed', `cannot set addrgenmode none on ${this.name}`, error, this.name);
    }
  }

  /** IFLA_AF_SPEC { AF_INET6: { IFLA_INET6_ADDR_GEN_MODE: none } }. */
  private noLinkLocal(): Map<number, Buffer> {
    return new Map([[AF_INET6, this.encode(this.nl.ifla.formatLinkProtocolInfoInet6({ addrGenMode: IN6_ADDR_GEN_MODE_NONE }))]]);
  }

  private encode(data: Netlink.StreamData): Buffer {
    const stream = new this.nl.AttrStream();
    stream.emit(data);
    return Buffer.concat(stream.bufs);
  }
}
