/**
 * The daemon's split-brain self-check (beyond MetalLB): the owner of each IP asks "who has this IP?" on the
 * interface it announces it on, every few seconds (self-check-schedule.ts), and an answer from a MAC that is not
 * one of this host's own, and not expected (below), is a conflict: another node that also thinks it owns the IP
 * (gossip cut between them), or a machine with the address configured. Conflicts are also fed passively by the L2 announcer (observe). Each new
 * conflict is logged at warn, emitted ('conflict'), counted, and listed by conflicts() for the status API until
 * it is forgotten (conflict-registry.ts).
 *
 * Replies from this host's own MACs are expected: our L2 responder answers our own probe when the announcer also
 * listens on another interface of the same segment, and so does our kernel when the VIP is bound locally. So are,
 * for a bounded window, answers from members with a reason: the previous owner handing over, a draining node, a
 * node ranked ahead of us whose state may have changed before we heard (expected-answer.ts). Those are logged at
 * debug with their reason and counted apart; only real conflicts are warned about, listed and counted as active.
 */
import { EventEmitter, setMaxListeners } from 'node:events';
import { REAL_BACKGROUND_RUNTIME } from '../../runtime/real-runtime';
import type { Clock, Scheduler, Timer } from '../../runtime/runtime';
import { formatIP, type IP } from '../../ip';
import { formatMAC } from '../../announce/l2/mac-address';
import type { ObservedConflict } from '../../announce/l2/l2-interface';
import { readHostInterfaces, type HostInterface } from '../../announce/l2/arping/host-interfaces';
import type { ProbeOnceOutcome } from '../../announce/l2/arping/probe-once';
import { ProbeSockets } from '../../announce/l2/arping/probe-sockets';
import type { PacketSocket, PacketSocketOptions } from '../../native';
import type { ArpingInterface } from '../../announce/l2/arping/neighbor-probe';
import {
  conflictObserved,
  emptySchedule,
  isOwned,
  isOwnedKey,
  membershipChanged,
  nextDueAt,
  PROBE_REASON_TEXT,
  probeDone,
  SELF_CHECK_MAX_IN_FLIGHT,
  setOwned,
  takeDue,
  type OwnedAddress,
  type ScheduledProbe,
  type SelfCheckSchedule,
  type SelfCheckTiming,
} from './self-check-schedule';
import {
  ANSWER_REASON_TEXT,
  EXPECTED_ANSWER_WINDOW_MS,
  judgeAnswer,
  NO_FACTS,
  type AnswerFacts,
  type ExpectedReason,
} from './expected-answer';
import {
  admitConflictLog,
  closeWindows,
  CONFLICT_LOG_INTERVAL_MS,
  EMPTY_LOG_GATE,
  nextWindowEnd,
  type ConflictLogGate,
} from './conflict-log-gate';
import {
  activeConflicts,
  CONFLICT_FORGET_MS,
  conflictText,
  conflictView,
  EMPTY_CONFLICT_REGISTRY,
  forget,
  listConflicts,
  nextForgetAt,
  recordSighting,
  type Conflict,
  type ConflictEvidence,
  type ConflictRegistry,
  type ConflictSighting,
} from './conflict-registry';
import { type Log } from '../../runtime/log';

/** The subset of a pino logger used here. */
export interface ProbeRequest {
  readonly target: IP;
  readonly iface: ArpingInterface;
  /** Aborted by close(). */
  readonly signal: AbortSignal;
}

/** Sends one probe and returns every MAC that answered (probe-once.ts by default). */
export type Probe = (request: ProbeRequest) => Promise<ProbeOnceOutcome>;

export interface SelfCheckerOptions {
  readonly logger: Log;
  /** Injected in tests; otherwise one long-lived packet socket per interface and kind (probe-sockets.ts). */
  readonly probe?: Probe;
  /** The default probe's sockets (tests count them); openPacketSocket otherwise. */
  readonly openSocket?: (options: PacketSocketOptions) => PacketSocket;
  /** This host's interfaces (their MACs are "ours"); readHostInterfaces by default, or the announcer's link table. */
  readonly interfaces?: () => readonly HostInterface[];
  /** Who owns each MAC (lowercase), from node facts in gossip; also settable later with setMacOwners. */
  readonly macOwners?: ReadonlyMap<string, string>;
  /**
   * What gossip, the election and the owner history say about another MAC answering an IP we own: whether it
   * may answer for a while (expected-answer.ts). Without it, a MAC of a member (macOwners) has no reason to
   * answer and any other is a stranger's.
   */
  readonly answerFacts?: (ip: IP, mac: string) => AnswerFacts;
  /** The defaults are the named constants of self-check-schedule.ts; tests shorten them. */
  readonly timing?: Partial<SelfCheckTiming>;
  readonly forgetMs?: number;
  /** Epoch ms; the runtime's clock by default. */
  readonly now?: () => number;
  /** The clock and timers (default REAL_BACKGROUND_RUNTIME: unref'd, the daemon's sockets keep it alive). */
  readonly runtime?: Clock & Scheduler;
  /** [0, 1); Math.random by default (jitter only). */
  readonly random?: () => number;
}

/** Counters for metrics (cumulative) and a gauge (active). */
export interface SelfCheckStats {
  probesSent: number;
  /** Probes not sent: no such interface, no MAC, the socket could not be opened or the queue was full. */
  probesFailed: number;
  /** Answers from other MACs, and passive observations accepted: every one, listed or not. */
  conflictSightings: number;
  /** New (IP, MAC) conflicts. */
  conflictsDetected: number;
  /** Conflicts active now: those listed plus the MACs folded into each IP's count (conflict-registry.ts). */
  active: number;
  /** Answers from other MACs judged expected (a handover, a drain, gossip converging): not conflicts. */
  expectedAnswers: number;
}

/**
 * First sightings of answers judged expected, remembered so their window can end. One per (IP, member MAC) in a
 * handover or convergence, so a few per owned IP at most; the cap only bounds a confused cluster, and the
 * stalest makes room.
 */
const EXPECTED_ANSWERS_MAX = 4096;

/**
 * The least time between two passes over the schedule. Finished probes wait for the next pass instead of each
 * starting one, so a node probing at the full SELF_CHECK_MAX_PROBES_PER_SECOND makes 5 passes a second, not 50,
 * and each takes the SELF_CHECK_BURST probes the budget gathered meanwhile (50 a second over 200 ms hold 10),
 * which then share one reply window (probe-sockets.ts): two timers per 10 probes, where every timer of an idle
 * daemon counts. A probe waits at most this much longer than its due time, well within the 10 s in which a
 * conflict must show (self-check-schedule.ts SELF_CHECK_INTERVAL_MS).
 */
const SELF_CHECK_PASS_SPACING_MS = 200;

interface ExpectedAnswer {
  readonly ip: IP;
  readonly firstSeen: number;
  readonly lastSeen: number;
  readonly reason: ExpectedReason;
}

export interface SelfCheckerEvents {
  conflict: [Conflict];
  conflictCleared: [Conflict, 'notSeen' | 'notOwned'];
}

export class SelfChecker extends EventEmitter<SelfCheckerEvents> {
  private schedule: SelfCheckSchedule;
  private registry: ConflictRegistry = EMPTY_CONFLICT_REGISTRY;
  /** Which IPs had a conflict logged lately, and how many new ones were held back since (conflict-log-gate.ts). */
  private logGate: ConflictLogGate = EMPTY_LOG_GATE;
  private macOwners: ReadonlyMap<string, string>;
  private timer: Timer | undefined;
  private timerAt: number | undefined;
  /** When the last pass over the schedule ran (SELF_CHECK_PASS_SPACING_MS). */
  private lastPass = -Infinity;
  private closed = false;
  private readonly abort = new AbortController();
  private readonly counters = { probesSent: 0, probesFailed: 0, conflictSightings: 0, conflictsDetected: 0, expectedAnswers: 0 };
  /** Answers judged expected, by `ip|mac`: when each was first seen (its window may run from then). */
  private expected = new Map<string, ExpectedAnswer>();
  /** Probe failure kinds already warned about, so a missing capability is said once, not at every probe. */
  private readonly warned = new Set<string>();
  private readonly probe: Probe;
  private readonly sockets: ProbeSockets | undefined;
  private readonly interfaces: () => readonly HostInterface[];
  private readonly now: () => number;
  private readonly runtime: Clock & Scheduler;
  private readonly random: () => number;
  private readonly forgetMs: number;

  constructor(private readonly options: SelfCheckerOptions) {
    super();
    // Each probe in flight listens on the one abort signal: up to SELF_CHECK_MAX_IN_FLIGHT by design, where Node
    // would warn of a leak past 10 (a MaxListenersExceededWarning on stderr of a daemon owning a few hundred VIPs).
    setMaxListeners(SELF_CHECK_MAX_IN_FLIGHT, this.abort.signal);
    this.schedule = emptySchedule(options.timing);
    this.macOwners = options.macOwners ?? new Map();
    this.sockets = options.probe
      ? undefined
      : new ProbeSockets({
          scheduler: options.runtime ?? REAL_BACKGROUND_RUNTIME,
          ...(options.openSocket ? { openSocket: options.openSocket } : {}),
        });
    this.probe = options.probe ?? ((r) => (this.sockets as ProbeSockets).probe(r));
    this.interfaces = options.interfaces ?? readHostInterfaces;
    this.runtime = options.runtime ?? REAL_BACKGROUND_RUNTIME;
    // Called through the runtime, never detached: a runtime may be a class whose now() reads its own fields.
    this.now = options.now ?? (() => this.runtime.now());
    this.random = options.random ?? Math.random;
    this.forgetMs = options.forgetMs ?? CONFLICT_FORGET_MS;
  }

  /** The whole owned set (IP, interface it is announced on); new pairs are probed soon. */
  setOwned(owned: readonly OwnedAddress[]): void {
    if (this.closed) return;
    this.schedule = setOwned(this.schedule, owned, this.now());
    this.pump();
  }

  /** Gossip membership changed: every owned IP is probed soon. */
  membershipChanged(): void {
    if (this.closed) return;
    this.schedule = membershipChanged(this.schedule, this.now());
    this.pump();
  }

  /** The L2 announcer saw another MAC claim an IP we own; ignored for IPs not owned here and for our own MACs. */
  observe(conflict: ObservedConflict): void {
    if (this.closed || !isOwned(this.schedule, conflict.ip)) return;
    const mac = formatMAC(conflict.mac);
    if (this.ownMacs().has(mac)) return;
    const now = this.now();
    this.sighting({ ip: conflict.ip, mac, interface: conflict.interface, evidence: conflict.evidence, at: now });
    this.schedule = conflictObserved(this.schedule, conflict.ip, now);
    // The probe it brought forward is due `soon`, so the next pass (armed here when it is not already) starts it;
    // a pass per sighting, over every expected answer and conflict, made a handover of thousands of IPs
    // quadratic.
    this.arm();
  }

  /** MAC (lowercase) -> node name, from the members' facts; used when listing, so a later answer names it too. */
  setMacOwners(owners: ReadonlyMap<string, string>): void {
    this.macOwners = owners;
  }

  conflicts(): Conflict[] {
    return listConflicts(this.registry, this.nodeOf);
  }

  stats(): SelfCheckStats {
    return { ...this.counters, active: activeConflicts(this.registry) };
  }

  /** Packet sockets the default probe has opened: one per interface and kind, however many probes. */
  get socketsOpened(): number {
    return this.sockets?.opened ?? 0;
  }

  /** Stops the timer and ends probes in flight; nothing is emitted afterwards. */
  close(): void {
    this.closed = true;
    this.abort.abort();
    this.sockets?.close();
    this.timer?.cancel();
    this.timer = undefined;
  }

  private readonly nodeOf = (mac: string): string | undefined => this.macOwners.get(mac);

  private ownMacs(): Set<string> {
    const macs = new Set<string>();
    for (const i of this.interfaces()) if (i.mac) macs.add(formatMAC(i.mac));
    return macs;
  }

  /** Forgets stale conflicts, starts due probes, and sets the timer for whatever comes next. */
  private pump(): void {
    if (this.closed) return;
    const now = this.now();
    this.lastPass = now;
    this.expire(now);
    this.summarise(now);
    const taken = takeDue(this.schedule, now);
    this.schedule = taken.schedule;
    if (taken.due.length > 0) {
      const interfaces = this.interfaces();
      for (const p of taken.due) void this.run(p, interfaces);
    }
    this.arm();
  }

  private arm(): void {
    const next = [nextDueAt(this.schedule), nextForgetAt(this.registry, this.forgetMs), nextWindowEnd(this.logGate)].filter(
      (t): t is number => t !== undefined,
    );
    const earliest = next.length > 0 ? Math.min(...next) : undefined;
    const at = earliest === undefined ? undefined : Math.max(earliest, this.lastPass + SELF_CHECK_PASS_SPACING_MS);
    if (at === this.timerAt && this.timer) return;
    this.timer?.cancel();
    this.timer = undefined;
    this.timerAt = at;
    if (at === undefined) return;
    // In the runtime's time; an injected `now` (a skewed clock) sets only the deadline's distance.
    this.timer = this.runtime.after(Math.max(0, at - this.now()), () => {
      this.timer = undefined;
      this.timerAt = undefined;
      this.pump();
    });
  }

  private async run(p: ScheduledProbe, interfaces: readonly HostInterface[]): Promise<void> {
    const where = { ip: formatIP(p.ip), interface: p.interface };
    let foreign: string[] = [];
    const iface = interfaces.find((i) => i.name === p.interface);
    if (!iface?.mac || !iface.up) {
      this.failed(
        'interface',
        where,
        !iface ? `no interface ${p.interface} here` : !iface.mac ? `${p.interface} has no MAC address` : `${p.interface} is down`,
      );
    } else {
      this.options.logger.debug({ event: 'selfCheckProbe', ...where, reason: p.reason }, PROBE_REASON_TEXT[p.reason]);
      try {
        const outcome = await this.probe({
          target: p.ip,
          iface: { name: iface.name, mac: iface.mac, addresses: iface.addresses },
          signal: this.abort.signal,
        });
        if (outcome.sent) {
          this.counters.probesSent++;
          this.warned.clear();
          const own = new Set(interfaces.filter((i) => i.mac).map((i) => formatMAC(i.mac as Uint8Array)));
          foreign = outcome.macs.filter((m) => !own.has(m));
        } else {
          this.failed('queueFull', where, 'the send queue was full');
        }
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        this.failed(typeof code === 'string' ? code : 'probeFailed', where, (error as Error).message ?? String(error));
      }
    }
    if (this.closed) return;
    const now = this.now();
    // A result for an address released meanwhile is stale: the other MAC may be its rightful new owner.
    const stillOwned = isOwnedKey(this.schedule, p.key);
    if (stillOwned) for (const mac of foreign) this.sighting({ ip: p.ip, mac, interface: p.interface, evidence: 'probeReply', at: now });
    this.schedule = probeDone(this.schedule, p.key, now, { conflict: stillOwned && foreign.length > 0 }, this.random);
    // The next pass starts what this one frees (arm: not sooner than SELF_CHECK_PASS_SPACING_MS after the last).
    // A pass already due that soon will: arming again would look at every owned pair once per finished probe.
    if (!this.timer || this.timerAt === undefined || this.timerAt > this.lastPass + SELF_CHECK_PASS_SPACING_MS) this.arm();
  }

  private failed(kind: string, where: { ip: string; interface: string }, why: string): void {
    this.counters.probesFailed++;
    const first = !this.warned.has(kind);
    this.warned.add(kind);
    const line = { event: 'selfCheckProbeFailed', ...where, code: kind, error: why };
    const msg = 'split-brain self-check: probe not sent';
    if (first) this.options.logger.warn(line, `${msg} (said once until a probe succeeds)`);
    else this.options.logger.debug(line, msg);
  }

  /**
   * Another MAC answered or announced an IP we own: judged against what the cluster expects (expected-answer.ts).
   * An expected answer is remembered (its window may run from its first sighting) and said at debug; a conflict
   * goes to the registry, the log and the listeners.
   */
  private sighting(s: { ip: IP; mac: string; interface: string; evidence: ConflictEvidence; at: number }): void {
    const key = `${formatIP(s.ip)}|${s.mac}`;
    // Once a conflict, it stays one until forgotten: its window, if it had one, is over.
    if (!this.registry.entries.has(key)) {
      const earlier = this.expected.get(key);
      const verdict = judgeAnswer(this.options.answerFacts?.(s.ip, s.mac) ?? this.defaultFacts(s.mac), earlier?.firstSeen ?? s.at, s.at);
      if (verdict.expected) {
        this.counters.expectedAnswers++;
        this.remember(key, { ip: s.ip, firstSeen: earlier?.firstSeen ?? s.at, lastSeen: s.at, reason: verdict.reason });
        if (!earlier || earlier.reason !== verdict.reason) {
          const fields = {
            ip: formatIP(s.ip),
            mac: s.mac,
            macOwner: this.nodeOf(s.mac) ?? null,
            interface: s.interface,
            reason: verdict.reason,
          };
          this.options.logger.debug(
            { event: 'selfCheckExpectedAnswer', ...fields, until: new Date(verdict.until).toISOString() },
            `${fields.ip} also answered by ${s.mac}: expected until ${new Date(verdict.until).toISOString()}, ${ANSWER_REASON_TEXT[verdict.reason]}`,
          );
        }
        return;
      }
      this.expected.delete(key);
      this.record({ ...s, reason: verdict.reason });
      return;
    }
    this.record(s);
  }

  /** The facts without a speaker: a member's MAC has no reason to answer, any other is a stranger's. */
  private defaultFacts(mac: string): AnswerFacts {
    return { ...NO_FACTS, member: this.nodeOf(mac) };
  }

  /**
   * Each answer is set anew when seen, so the map's order is the order they were last seen in: the first is the
   * stalest, and making room costs no walk (a handover of more IPs than the cap would otherwise walk it per IP).
   */
  private remember(key: string, answer: ExpectedAnswer): void {
    this.expected.delete(key);
    if (this.expected.size >= EXPECTED_ANSWERS_MAX) {
      const stalest = this.expected.keys().next();
      if (!stalest.done) this.expected.delete(stalest.value);
    }
    this.expected.set(key, answer);
  }

  private record(s: {
    ip: IP;
    mac: string;
    interface: string;
    evidence: ConflictEvidence;
    at: number;
    reason?: ConflictSighting['reason'];
  }): void {
    this.counters.conflictSightings++;
    const recorded = recordSighting(this.registry, s);
    this.registry = recorded.registry;
    if (!recorded.isNew || !recorded.entry) return;
    this.counters.conflictsDetected++;
    const conflict = conflictView(recorded.entry, this.nodeOf);
    const gate = admitConflictLog(this.logGate, conflict.ip, s.at);
    this.logGate = gate.gate;
    // Held back: said in the summary when this IP's window ends (summarise), counted in the metrics meanwhile.
    if (!gate.log) return;
    this.options.logger.warn({ event: 'splitBrainDetected', ...logFields(conflict) }, conflictText(conflict));
    this.tell('conflict', conflict);
  }

  /** One line per IP whose log window ended with new conflicts held back: "and N more". */
  private summarise(now: number): void {
    const closed = closeWindows(this.logGate, now);
    this.logGate = closed.gate;
    for (const { ip, held } of closed.summaries) {
      this.options.logger.warn(
        { event: 'splitBrainDetected', ip, moreMacs: held },
        `${ip}: and ${held} more MACs also claimed it in the last ${CONFLICT_LOG_INTERVAL_MS / 1000} s (logged once per IP per ` +
          `${CONFLICT_LOG_INTERVAL_MS / 1000} s; mlb status lists the first and latest, mlb_conflict_replies_total counts every reply)`,
      );
    }
  }

  private expire(now: number): void {
    // An expected answer not heard again for a window is over; one for an address released is moot.
    for (const [key, a] of this.expected) {
      if (!isOwned(this.schedule, a.ip) || now - a.lastSeen >= EXPECTED_ANSWER_WINDOW_MS) this.expected.delete(key);
    }
    const result = forget(this.registry, now, (ip) => isOwned(this.schedule, ip), this.forgetMs);
    this.registry = result.registry;
    for (const { entry, reason } of result.forgotten) {
      const conflict = conflictView(entry, this.nodeOf);
      const why = reason === 'notOwned' ? 'this node no longer owns the address' : `not seen for ${Math.round(this.forgetMs / 1000)} s`;
      this.options.logger.info(
        { event: 'splitBrainCleared', ...logFields(conflict), reason },
        `conflict on ${conflict.ip} with ${conflict.mac} is over: ${why}`,
      );
      this.tell('conflictCleared', conflict, reason);
    }
  }

  /** A listener that throws must not break the checker's loop: logged, not rethrown. */
  private tell<K extends keyof SelfCheckerEvents>(event: K, ...args: SelfCheckerEvents[K]): void {
    try {
      (this.emit as (e: K, ...a: SelfCheckerEvents[K]) => boolean)(event, ...args);
    } catch (error) {
      this.options.logger.warn(
        { event: 'selfCheckListenerFailed', listener: event, error: (error as Error)?.message ?? String(error) },
        'a self-check listener threw',
      );
    }
  }
}

/**
 * A conflict as log fields: the other party's node goes in `macOwner`, because `node` is the logging node's own
 * name in every line (logger.ts) and must not be overwritten.
 */
function logFields(conflict: Conflict): Record<string, unknown> {
  const { node, ...rest } = conflict;
  return { ...rest, macOwner: node };
}
