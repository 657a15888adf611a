/**
 * What this node does about the IPs it owns: answer ARP/NDP for them on the chosen interfaces (L2Announcer),
 * accept their traffic (the VIP bound to mlb0), and log every change with MetalLB's event names
 * (serviceAnnounced, serviceWithdrawn with the reason). Given the full owned set every time, it converges:
 * calling it twice with the same set does nothing the second time.
 */
import type { Logger } from 'pino';
import { InterfaceChooser, selectionBasis, type LinkSource } from '../announce/l2/interfaces';
import type { DesiredAnnouncement } from '../announce/l2/l2-announcer-state';
import { ipKey } from '../announce/l2/l2-interface';
import { formatIP, type IP } from '../ip';
import { REAL_RUNTIME } from '../runtime/real-runtime';
import type { Clock } from '../runtime/runtime';
import { answerAheadOf, answersWhileBinding, nextProgressAt } from './answers-while-binding';
import type { OwnedL2 } from './cluster-decision';

/** The parts that touch the host, injectable so the daemon can run with announcing off (--no-announce). */
export interface AnnouncePorts {
  reconcileL2(desired: readonly DesiredAnnouncement[]): void;
  /** Answers these ahead of the next reconcileL2 (L2Announcer.answerAhead): each batch of a binding as it lands. */
  answerAhead?(additions: readonly DesiredAnnouncement[]): void;
  /**
   * Binds exactly these VIPs locally (mlb0), telling `onBound` of each batch as it lands; undefined when binding
   * is off.
   */
  bindVips?(ips: readonly IP[], onBound?: (bound: readonly IP[]) => void): Promise<void>;
}

export interface AnnouncedIP {
  readonly service: string;
  readonly ip: string;
  readonly address: IP;
  readonly interfaces: readonly string[];
  /** When this node started announcing it (epoch ms). */
  readonly since: number;
}

/** One reading of the links: what interface selection reads of them (selectionBasis), and a chooser over them. */
interface LinksReading {
  readonly links: unknown;
  readonly basis: string;
  readonly chooser: InterfaceChooser;
}

/** One serviceAnnounced or serviceWithdrawn line: its fields and message. */
type AnnouncementLine = readonly [Record<string, unknown>, string];

export class LocalAnnouncements {
  private current = new Map<string, AnnouncedIP>();
  /** Bumped whenever the announced set is replaced: a reader of announced() may skip work while it holds. */
  private changed = 0;
  /**
   * Every service announced, by "ip|service": services sharing an IP (metallb.io/allow-shared-ip) are announced
   * and withdrawn in the log each, as MetalLB logs per service, though the IP is answered for once.
   */
  private services = new Map<string, { readonly service: string; readonly ip: string }>();
  private bindQueue: Promise<void> = Promise.resolve();
  /** Changes asked for so far: a queued change is stale once a newer one is asked for. */
  private changes = 0;
  /** The VIPs the last completed binding left bound. */
  private boundNow: readonly IP[] = [];
  /** What the announcer was last told to answer for. */
  private answering: readonly DesiredAnnouncement[] = [];
  private lastWarning = new Map<string, string>();
  /**
   * The last change applied, once its binding completed: a decision that changes nothing here (a health report, a
   * member's meta, a received table: most of them) is then skipped whole, where converging again walked every
   * owned IP (interfaces chosen, maps rebuilt, a binding queued): tens of ms per decision at 10,000 services. After
   * a failed binding it is cleared, so the next decision tries again.
   */
  private applied:
    { readonly owned: readonly OwnedL2[]; readonly alsoBound: readonly IP[]; readonly basis: string | undefined } | undefined;
  /**
   * The links last read, what interface selection reads of them (selectionBasis), and a chooser over them, kept
   * while the basis holds: choosing walks every link, and a change of one service among 10,000 owned IPs chose
   * again for all of them (binding a VIP changes mlb0's addresses, hence the links read, but not the basis).
   */
  private basisOf: LinksReading | undefined;

  constructor(
    private readonly ports: AnnouncePorts | undefined,
    private readonly links: LinkSource | undefined,
    private readonly logger: Logger,
    /** What `since` reads (the real clock by default; a simulated node's virtual one). */
    private readonly clock: Clock = REAL_RUNTIME,
  ) {}

  /**
   * Converges to `owned`; `why` is the withdraw reason logged for each IP that stops (notOwner, nodeDraining ...).
   * `alsoBound`: IPs advertised by BGP, which need binding but no ARP/NDP answers.
   */
  apply(owned: readonly OwnedL2[], why: (service: string, ip: string) => string, alsoBound: readonly IP[] = []): void {
    const links = this.links?.links();
    const reading = links && this.reading(links);
    const basis = reading?.basis;
    const last = this.applied;
    if (last && last.basis === basis && sameOwned(last.owned, owned) && sameIPs(last.alsoBound, alsoBound)) return;
    this.applied = undefined;
    const next = new Map<string, AnnouncedIP>();
    const nextServices = new Map<string, { service: string; ip: string }>();
    const desired: DesiredAnnouncement[] = [];
    const lines: AnnouncementLine[] = [];
    for (const o of owned) {
      const ip = formatIP(o.ip);
      const interfaces = reading ? this.interfacesFor(o, ip, reading.chooser) : [...o.interfaces];
      desired.push({ ip: o.ip, interfaces });
      const previous = this.current.get(ip);
      next.set(ip, { service: o.service, ip, address: o.ip, interfaces, since: previous?.since ?? this.clock.now() });
      const key = `${ip}|${o.service}`;
      nextServices.set(key, { service: o.service, ip });
      if (!this.services.has(key)) {
        lines.push([
          { event: 'serviceAnnounced', service: o.service, ip, interfaces, protocol: 'layer2' },
          `announcing ${ip} for ${o.service}`,
        ]);
      }
    }
    for (const [key, was] of this.services) {
      if (nextServices.has(key)) continue;
      const reason = why(was.service, was.ip);
      lines.push([
        { event: 'serviceWithdrawn', service: was.service, ip: was.ip, reason, protocol: 'layer2' },
        `withdrawing ${was.ip} for ${was.service}: ${reason}`,
      ]);
    }
    this.current = next;
    this.changed++;
    this.services = nextServices;
    // A line per IP (MetalLB's serviceAnnounced and serviceWithdrawn) costs tens of microseconds, written
    // synchronously: with thousands of IPs moving at once they are written once the binding is done, not before it.
    const log = (): void => {
      for (const [fields, message] of lines) this.logger.info(fields, message);
    };
    const ports = this.ports;
    const applied = { owned, alsoBound, basis };
    if (!ports) {
      this.applied = applied;
      return log();
    }
    const bind = ports.bindVips;
    if (!bind) {
      this.answer(ports, desired);
      this.applied = applied;
      return log();
    }
    // Order matters to a client: a new VIP is bound before the gratuitous ARP sends traffic to it (or the first
    // connections would be refused), and a withdrawn one is unbound only after its announcing stopped. VIPs are
    // answered as their batch lands, not after the whole change (answers-while-binding.ts).
    //
    // Changes queue behind a binding still under way, and by the time one's turn comes a newer one may be queued
    // behind it: the older is then stale, and doing it would bind and answer again IPs this node has since given
    // up (under load, with thousands of VIPs, an IP handed over came back a few seconds later, answered by two
    // nodes). A stale change not started yet is skipped; one under way stops answering ahead of it and leaves
    // what it bound for the newer one, which stops the answers first and unbinds after.
    const ips = [...owned.map((o) => o.ip), ...alsoBound];
    const change = ++this.changes;
    const current = () => change === this.changes;
    this.bindQueue = this.bindQueue
      .then(async () => {
        if (!current()) return;
        const answerable = answersWhileBinding(desired, this.answering);
        const ahead = answerAheadOf(desired);
        const bound = new Set(this.boundNow.map(ipKey));
        const both = [...this.boundNow, ...ips];
        let nextAt = -Infinity;
        await bind(both, (landed) => {
          for (const ip of landed) bound.add(ipKey(ip));
          if (!current()) return;
          ports.answerAhead?.(ahead(landed));
          const startedAt = this.clock.now();
          if (startedAt < nextAt) return;
          this.answer(ports, answerable(bound));
          nextAt = nextProgressAt(startedAt, this.clock.now());
        });
        if (!current()) {
          this.boundNow = [...new Map(both.map((ip) => [ipKey(ip), ip])).values()];
          return;
        }
        this.answer(ports, desired);
        await bind(ips);
        this.boundNow = ips;
        if (current()) this.applied = applied;
      })
      .catch((error: Error) => this.logger.error({ event: 'vipBindFailed', error: error.message }, `cannot bind VIPs: ${error.message}`))
      .then(log);
  }

  private answer(ports: AnnouncePorts, desired: readonly DesiredAnnouncement[]): void {
    this.answering = desired;
    ports.reconcileL2(desired);
  }

  /** Changes with every new announced set (not with a decision that left it as it was). */
  get version(): number {
    return this.changed;
  }

  announced(): AnnouncedIP[] {
    return [...this.current.values()];
  }

  /** Resolves when every VIP binding asked for so far is done. */
  settled(): Promise<void> {
    return this.bindQueue;
  }

  /** What interface selection reads of `links`; the chooser of the last reading while that holds. */
  private reading(links: ReturnType<LinkSource['links']>): LinksReading {
    if (this.basisOf?.links === links) return this.basisOf;
    const basis = selectionBasis(links);
    const chooser = this.basisOf?.basis === basis ? this.basisOf.chooser : new InterfaceChooser(links);
    this.basisOf = { links, basis, chooser };
    return this.basisOf;
  }

  /** The interfaces to announce `owned` on, with a log line when its selection's warning changed. */
  private interfacesFor(owned: OwnedL2, ip: string, chooser: InterfaceChooser): readonly string[] {
    const selection = chooser.select(owned.ip, owned.interfaces);
    const warning = selection.warning ?? '';
    if (this.lastWarning.get(ip) !== warning) {
      this.lastWarning.set(ip, warning);
      if (warning === 'noUsableInterface') {
        this.logger.error({ event: 'noUsableInterface', ip, choices: selection.choices }, `no interface can announce ${ip}`);
      } else if (warning === 'noInterfaceInVipSubnet') {
        this.logger.warn(
          { event: 'noInterfaceInVipSubnet', ip, interfaces: selection.selected },
          `no interface has a subnet containing ${ip}: announcing on every eligible one`,
        );
      }
    }
    return selection.selected;
  }
}

/** The same owned set, in the same order: each service, address and interface list equal. */
function sameOwned(a: readonly OwnedL2[], b: readonly OwnedL2[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as OwnedL2;
    const y = b[i] as OwnedL2;
    if (x.service !== y.service || x.ip.family !== y.ip.family || x.ip.value !== y.ip.value) return false;
    if (x.interfaces.length !== y.interfaces.length || x.interfaces.some((n, j) => n !== y.interfaces[j])) return false;
  }
  return true;
}

function sameIPs(a: readonly IP[], b: readonly IP[]): boolean {
  return a.length === b.length && a.every((x, i) => x.family === b[i]?.family && x.value === b[i]?.value);
}
