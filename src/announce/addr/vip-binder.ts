/**
 * VIP binding on plain hosts (docs/architecture.md, "VIP binding (file mode)"): the node that owns a VIP adds
 * it to the dummy interface mlb0 (/32, /128 nodad) so the host accepts its traffic, and removes it on withdrawal.
 * Off in Kubernetes, where kube-proxy does this. The imperative shell around vip-plan.ts (what to add and remove)
 * and arp-sysctl-plan.ts (which sysctls keep a crashed daemon's kernel silent), over vip-link.ts (rtnetlink) and
 * arp-sysctls.ts (/proc).
 *
 * Crash safety has two halves. A crashed daemon leaves its VIPs on mlb0: prepareInterfaces makes the kernel
 * never answer ARP for them on the announcing interfaces (nor use them as ARP source), and the next open()
 * removes them. Operations are serialized, so reconcile, prepareInterfaces and close never interleave on mlb0.
 *
 * Scale: additions and removals go out in batches (vip-batch.ts), and with an address source (the daemon's
 * netlink link table) mlb0's addresses are a view kept from the kernel's notifications, not a dump per
 * reconcile. The same notifications say when someone else changed mlb0 (`ip addr del` of a VIP, the link
 * deleted): the binder then reconciles again on its own, and says why (vipChangedBehindOurBack).
 */
import { compareIP, formatIP, type IP } from '../../ip';
import { arpSysctlPlan, type ArpSysctlChange, type ArpSysctlPlan } from './arp-sysctl-plan';
import { PROC_IPV4_CONF, readArpSysctls, writeArpSysctl } from './arp-sysctls';
import { VipBindError } from './vip-bind-error';
import { VipLink, type VipLinkState } from './vip-link';
import { VIP_PREFIX, formatBoundAddress, planVipBinding, type BoundAddress, type VipDecision } from './vip-plan';
import { type Log, SILENT_LOG } from '../../runtime/log';
import { REAL_BACKGROUND_RUNTIME } from '../../runtime/real-runtime';
import type { Scheduler, Timer } from '../../runtime/runtime';
import { VIP_NETLINK_BATCH, inBatches } from './vip-batch';
import { VipLinkView } from './vip-link-view';

/**
 * After mlb0 changed behind the binder's back, how long to wait for the rest of the burst (`ip addr flush` is
 * one notification per address) before one reconcile repairs all of it.
 */
const REPAIR_SETTLE_MS = 100;

/** The kernel's address changes on every link, told one at a time (NetlinkLinks in the daemon). */
export interface VipAddressSource {
  onAddressChange(listener: (change: { index: number; address: BoundAddress; present: boolean }) => void): () => void;
}

/** The interface name docs/architecture.md gives; mlb owns every address on it. */
const DEFAULT_VIP_INTERFACE = 'mlb0';

/** The shape of the daemon's pino logger that this module uses (as Log in announce/l2). */
export interface VipBinderOptions {
  /** Default DEFAULT_VIP_INTERFACE. */
  readonly interfaceName?: string;
  readonly logger?: Log;
  /** Where the ARP sysctls live; a temporary directory in unit tests. Default /proc/sys/net/ipv4/conf. */
  readonly sysctlRoot?: string;
  /**
   * mlb0's addresses as notified by the kernel: reconcile reads them instead of dumping every address of the
   * host, and a change nobody asked for is repaired. Without it (tests, tools), each reconcile dumps.
   */
  readonly addresses?: VipAddressSource;
  /** The repair's settle timer (default real, unref'd). */
  readonly scheduler?: Scheduler;
}

export interface VipReconcileResult {
  /** VIPs now on mlb0 that were not before. */
  readonly added: IP[];
  /** VIPs (or stray addresses) taken off mlb0. */
  readonly removed: IP[];
  /** Every failure, already logged: a single bad address never stops the others. */
  readonly failed: VipBindError[];
  /** vip-plan.ts's decisions, with reasons. */
  readonly decisions: VipDecision[];
}

export interface PrepareInterfacesResult extends ArpSysctlPlan {
  /** The planned changes that were written. */
  readonly applied: ArpSysctlChange[];
  readonly failed: VipBindError[];
}

type RemovalCause = 'notDesired' | 'wrongPrefix' | 'staleFromPreviousRun' | 'daemonStopping';

export class VipBinder {
  private readonly view = new VipLinkView();
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;
  /** What the last reconcile was asked for (undefined before the first): a change departing from it is repaired. */
  private desired: readonly IP[] | undefined;
  /** mlb0's index as of the last ensure (notifications name links by index). */
  private linkIndex: number | undefined;
  private repairTimer: Timer | undefined;
  private unsubscribe: (() => void) | undefined;
  /** Reconciles started by a change made behind the binder's back. */
  repairs = 0;
  /** What open() found on mlb0 and removed: the stale VIPs of a crashed run. */
  staleRemoved: readonly IP[] = [];
  /** The kind of mlb0 (dummy, or ifb where the kernel has no dummy driver). */
  kind: VipLinkState['kind'] | undefined;

  private constructor(
    private readonly link: VipLink,
    private readonly log: Log,
    private readonly sysctlRoot: string,
    private readonly source: VipAddressSource | undefined,
    private readonly scheduler: Scheduler,
  ) {}

  get interfaceName(): string {
    return this.link.name;
  }

  /**
   * Makes mlb0 if missing (dummy, else ifb), sets it up, and removes every address on it: after a crash they are
   * VIPs this node may no longer own. Throws a VipBindError when the interface cannot be had at all (no
   * netlink, no permission, no driver, a foreign mlb0); a stale address that cannot be removed is logged only.
   */
  static async open(options: VipBinderOptions = {}): Promise<VipBinder> {
    const log = options.logger ?? SILENT_LOG;
    const name = options.interfaceName ?? DEFAULT_VIP_INTERFACE;
    let link: VipLink;
    try {
      link = VipLink.open(name, (error) =>
        log.warn({ event: 'vipNetlinkSocketError', interface: name, error: error.message }, `netlink socket of ${name}: ${error.message}`),
      );
    } catch (error) {
      log.error(
        { event: 'vipInterfaceFailed', interface: name, code: (error as VipBindError).code, reason: (error as VipBindError).code },
        (error as Error).message,
      );
      throw error;
    }
    const binder = new VipBinder(
      link,
      log,
      options.sysctlRoot ?? PROC_IPV4_CONF,
      options.addresses,
      options.scheduler ?? REAL_BACKGROUND_RUNTIME,
    );
    try {
      const { index } = await binder.ensureLink();
      const stale = planVipBinding(await link.addresses(index), []);
      const result = await binder.applyRemovals(index, stale.remove, () => 'staleFromPreviousRun');
      binder.staleRemoved = result.removed;
      binder.view.reset(await link.addresses(index));
      binder.unsubscribe = options.addresses?.onAddressChange((change) => binder.noticed(change));
    } catch (error) {
      link.close();
      const e = error as VipBindError;
      log.error({ event: 'vipInterfaceFailed', interface: name, code: e.code, errno: e.errno, reason: e.code }, e.message);
      throw error;
    }
    return binder;
  }

  /**
   * Makes mlb0 hold exactly `desired`, each as /32 or /128 (IPv6 nodad). Idempotent; repairs mlb0 if it was
   * deleted or set down meanwhile. Never rejects for a kernel refusal: failures are logged and returned.
   * `onBound` hears each batch of VIPs as it lands on mlb0 (VIP_NETLINK_BATCH at a time), so the caller can start
   * answering for them while the rest are still being bound.
   */
  reconcile(desired: readonly IP[], onBound?: (bound: readonly IP[]) => void): Promise<VipReconcileResult> {
    this.desired = desired;
    this.view.want(desired);
    return this.serialized(async () => {
      let index: number;
      let current: readonly BoundAddress[];
      try {
        const state = await this.ensureLink();
        index = state.index;
        // Without notifications, or on a link just made again, only a dump says what is there.
        if (!this.source || state.created) this.view.reset(await this.link.addresses(index));
        current = this.view.addresses();
      } catch (error) {
        const e = error as VipBindError;
        this.log.error({ event: 'vipReconcileFailed', interface: this.link.name, code: e.code, errno: e.errno, reason: e.code }, e.message);
        return { added: [], removed: [], failed: [e], decisions: [] };
      }
      const plan = planVipBinding(current, desired);
      const reasonOf = new Map(
        plan.decisions.filter((d) => d.action === 'remove').map((d) => [formatBoundAddress(d), d.reason as RemovalCause]),
      );
      const removal = await this.applyRemovals(index, plan.remove, (a) => reasonOf.get(formatBoundAddress(a)) ?? 'notDesired');
      const addition = await this.applyAdditions(index, plan.add, plan.decisions, onBound);
      return {
        added: addition.added,
        removed: removal.removed,
        failed: [...removal.failed, ...addition.failed],
        decisions: plan.decisions,
      };
    });
  }

  /** The VIPs on mlb0 as of the last open/reconcile (sorted). */
  bound(): IP[] {
    return this.view.ips().sort(compareIP);
  }

  /**
   * Sets arp_ignore=1 and arp_announce=2 on the announcing interfaces (and conf/all where its value would
   * override them), so the kernel never answers ARP for a VIP on mlb0 nor sends it as ARP source, even after
   * mlb crashed. Each change is logged with the old value and why. Values are not restored on close: the
   * guarantee must hold across the crash it exists for. Call again when the announcing interfaces change (a
   * recreated interface starts from conf/default).
   */
  prepareInterfaces(names: readonly string[]): Promise<PrepareInterfacesResult> {
    return this.serialized(async () => {
      const plan = arpSysctlPlan(names, await readArpSysctls(names, this.sysctlRoot));
      const applied: ArpSysctlChange[] = [];
      const failed: VipBindError[] = [];
      for (const change of plan.changes) {
        const sysctl = `net.ipv4.conf.${change.scope}.${change.name}`;
        try {
          await writeArpSysctl(change.scope, change.name, change.to, this.sysctlRoot);
          applied.push(change);
          this.log.info(
            { event: 'arpSysctlChanged', sysctl, from: change.from, to: change.to, reason: change.reason, why: change.why },
            `set ${sysctl} ${change.from} -> ${change.to}`,
          );
        } catch (error) {
          const e = error as VipBindError;
          failed.push(e);
          this.log.error(
            { event: 'arpSysctlFailed', sysctl, from: change.from, to: change.to, code: e.code, reason: change.reason },
            e.message,
          );
        }
      }
      for (const kept of plan.kept) {
        this.log.debug({
          event: 'arpSysctlKept',
          sysctl: `net.ipv4.conf.${kept.scope}.${kept.name}`,
          value: kept.value,
          effective: kept.effective,
          reason: kept.reason,
          why: kept.why,
        });
      }
      for (const skipped of plan.skipped) {
        this.log.warn(
          { event: 'arpSysctlSkipped', interface: skipped.scope, reason: skipped.reason, why: skipped.why },
          `ARP sysctls of ${skipped.scope} not set: ${skipped.why}`,
        );
      }
      return { ...plan, applied, failed };
    });
  }

  /**
   * Stops: with keep=false (the daemon's graceful stop) every address on mlb0 is removed first, so nothing is
   * left for a successor to fight; mlb0 itself stays for the next start. keep=true leaves them.
   */
  close(options: { keep: boolean }): Promise<void> {
    if (this.closed) return this.queue.then(() => undefined);
    this.unsubscribe?.();
    this.repairTimer?.cancel();
    this.repairTimer = undefined;
    const done = this.serialized(async () => {
      if (!options.keep) {
        try {
          const { index } = await this.ensureLink();
          const plan = planVipBinding(await this.link.addresses(index), []);
          await this.applyRemovals(index, plan.remove, () => 'daemonStopping');
        } catch (error) {
          const e = error as VipBindError;
          this.log.error({ event: 'vipCloseFailed', interface: this.link.name, code: e.code, errno: e.errno, reason: e.code }, e.message);
        }
      }
      this.link.close();
    });
    this.closed = true;
    return done;
  }

  private serialized<T>(operation: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new VipBindError('closed', `${this.link.name}: the VIP binder is closed`));
    const run = this.queue.then(operation, operation);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async ensureLink(): Promise<VipLinkState> {
    const state = await this.link.ensure();
    if (state.fallbackFrom) {
      this.log.warn(
        {
          event: 'vipInterfaceFallback',
          interface: this.link.name,
          kind: state.kind,
          refused: state.fallbackFrom.kind,
          errno: state.fallbackFrom.errno,
          reason: 'dummyUnsupported',
        },
        `this kernel has no ${state.fallbackFrom.kind} driver (${state.fallbackFrom.errno}); ${this.link.name} is an ${state.kind} device instead (also NOARP, drops everything)`,
      );
    }
    if (state.created) {
      this.log.info(
        {
          event: 'vipInterfaceCreated',
          interface: this.link.name,
          index: state.index,
          kind: state.kind,
          reason: this.kind ? 'deletedWhileRunning' : 'firstStart',
        },
        `created ${this.link.name} (${state.kind})`,
      );
    }
    this.kind = state.kind;
    this.linkIndex = state.index;
    return state;
  }

  /**
   * The kernel says an address of some link appeared or left. On mlb0, one that departs from what was last asked
   * for (a VIP gone, a stranger added) was changed by someone else: logged, and repaired by a reconcile once the
   * burst settles. The binder's own changes agree with what it was asked for, so they never trigger one.
   */
  private noticed(change: { index: number; address: BoundAddress; present: boolean }): void {
    if (this.closed || this.desired === undefined || change.index !== this.linkIndex) return;
    const foreign = this.view.noticed(change);
    if (!foreign) return;
    const text = formatBoundAddress(change.address);
    this.log.warn(
      {
        event: 'vipChangedBehindOurBack',
        interface: this.link.name,
        ip: formatIP(change.address.ip),
        prefix: change.address.prefix,
        reason: foreign,
      },
      foreign === 'notDesiredAdded'
        ? `${text} was added to ${this.link.name} by someone else: removing it`
        : `${text} was removed from ${this.link.name} by someone else: binding it again`,
    );
    if (this.repairTimer) return;
    this.repairTimer = this.scheduler.after(REPAIR_SETTLE_MS, () => {
      this.repairTimer = undefined;
      if (this.closed || this.desired === undefined) return;
      this.repairs++;
      void this.reconcile(this.desired);
    });
  }

  private async applyRemovals(
    index: number,
    addresses: readonly BoundAddress[],
    cause: (a: BoundAddress) => RemovalCause,
  ): Promise<{ removed: IP[]; failed: VipBindError[] }> {
    const removed: IP[] = [];
    const failed: VipBindError[] = [];
    await inBatches(addresses, VIP_NETLINK_BATCH, async (address) => {
      const reason = cause(address);
      this.view.expect(address, false);
      try {
        const outcome = await this.link.remove(index, address);
        this.view.settled(address, false, outcome === 'removed' ? 'changed' : 'already');
        removed.push(address.ip);
        const fields = {
          event: reason === 'staleFromPreviousRun' ? 'staleVipRemoved' : 'vipUnbound',
          interface: this.link.name,
          ip: formatIP(address.ip),
          prefix: address.prefix,
          reason,
          outcome,
        };
        if (reason === 'staleFromPreviousRun')
          this.log.warn(fields, `removed stale ${formatBoundAddress(address)} from ${this.link.name} (left by a previous run)`);
        else this.log.info(fields, `unbound ${formatBoundAddress(address)} from ${this.link.name}`);
      } catch (error) {
        this.view.settled(address, false, 'failed');
        const e = error as VipBindError;
        failed.push(e);
        this.log.error(
          {
            event: 'vipUnbindFailed',
            interface: this.link.name,
            ip: formatIP(address.ip),
            prefix: address.prefix,
            code: e.code,
            errno: e.errno,
            reason,
          },
          e.message,
        );
      }
    });
    return { removed, failed };
  }

  private async applyAdditions(
    index: number,
    ips: readonly IP[],
    decisions: readonly VipDecision[],
    onBound: ((bound: readonly IP[]) => void) | undefined,
  ): Promise<{ added: IP[]; failed: VipBindError[] }> {
    const added: IP[] = [];
    const failed: VipBindError[] = [];
    const reasons = new Map(decisions.filter((d) => d.action === 'add').map((d) => [keyOf(d.ip), d.reason]));
    const each = async (ip: IP) => {
      const reason = reasons.get(keyOf(ip)) ?? 'desiredNotBound';
      const text = formatIP(ip);
      const address = { ip, prefix: VIP_PREFIX[ip.family] };
      this.view.expect(address, true);
      try {
        const outcome = await this.link.add(index, ip);
        this.view.settled(address, true, outcome === 'added' ? 'changed' : 'already');
        added.push(ip);
        this.log.info(
          { event: 'vipBound', interface: this.link.name, ip: text, prefix: VIP_PREFIX[ip.family], reason, outcome },
          `bound ${text} to ${this.link.name}`,
        );
      } catch (error) {
        this.view.settled(address, true, 'failed');
        const e = error as VipBindError;
        failed.push(e);
        this.log.error({ event: 'vipBindFailed', interface: this.link.name, ip: text, code: e.code, errno: e.errno, reason }, e.message);
      }
    };
    let reported = 0;
    await inBatches(ips, VIP_NETLINK_BATCH, each, () => {
      if (!onBound || added.length === reported) return;
      onBound(added.slice(reported));
      reported = added.length;
    });
    return { added, failed };
  }
}

function keyOf(ip: IP): string {
  return `${ip.family}/${ip.value}`;
}
