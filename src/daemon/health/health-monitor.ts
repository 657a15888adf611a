/**
 * Runs the health checks of this node's services: one probe loop per health-checked Service, the results fed
 * through the rise/fall reducer (health-state.ts), and a 'change' event when a verdict flips. The speaker
 * passes the whole desired set to update() after every configuration load (reconcile, not react): a service
 * whose spec did not change keeps its loop and its verdict untouched.
 *
 * - Probes of one service never overlap: the next starts `interval` after the previous one started, or as soon
 *   as it ends when it took longer.
 * - A new service reads 'failing' ("awaiting first probe") until its first probe decides; it is probed at once.
 * - A changed interval, timeout, rise or fall keeps the verdict; a changed target starts over, but the old
 *   verdict stays published until the new target's first probe decides, so an edit does not move the VIP twice.
 * - Timers are unref'd (REAL_BACKGROUND_RUNTIME): health checks alone never keep the daemon alive.
 * - Time and timers come from the injected runtime (src/runtime/runtime.ts), so tests move time by hand.
 * - Logged once per verdict change, never per probe: failing at warn (including a check whose first probe fails,
 *   which flips nothing a reader sees but is the first anyone hears of it), passing again at info; each line names
 *   the service, the node and the last result.
 */
import { EventEmitter } from 'node:events';
import { REAL_BACKGROUND_RUNTIME } from '../../runtime/real-runtime';
import type { Clock, Scheduler, Timer } from '../../runtime/runtime';
import type { HealthCheckSpec } from './health-check-spec';
import { runProbe } from './health-probers';
import { type HealthChange, type HealthState, type ProbeResult, initialHealthState, reduceHealth, withThresholds } from './health-state';
import { SILENT_LOG, type Log } from '../../runtime/log';

export interface MonitoredService {
  /** serviceKey(): "namespace/name". */
  readonly key: string;
  readonly spec: HealthCheckSpec | undefined;
}

/** What the node publishes for one service: passing means it may hold the service's IP. */
export interface HealthResult {
  readonly state: 'passing' | 'failing';
  /** When `state` last flipped (or monitoring began), in the injected clock's milliseconds. */
  readonly since: number;
  /** The latest probe's detail, or why there is none yet. */
  readonly detail: string;
}

export type Prober = (spec: HealthCheckSpec, signal: AbortSignal) => Promise<ProbeResult>;

/** The subset of a pino logger the monitor uses. */
export interface HealthMonitorOptions {
  /** Wall clock for `since` (default: the runtime's clock). */
  readonly now?: () => number;
  /** The clock and timers the probe loops run on (default REAL_BACKGROUND_RUNTIME: unref'd real timers). */
  readonly runtime?: Clock & Scheduler;
  readonly logger?: Log;
  /** Injected in tests; runProbe (tcp, http, exec) otherwise. */
  readonly probe?: Prober;
  /** This node's name, for the log lines (an operator reads many nodes' logs side by side). */
  readonly node?: string;
}

export interface HealthMonitorEvents {
  /** A verdict flipped, or a check's first probe failed (a failure nobody had been told about yet). */
  change: [key: string, result: HealthResult, change: HealthChange];
  /** Every recorded probe: the published detail may have changed ("HTTP 503" -> "timed out after 1000 ms"). */
  probed: [key: string, result: HealthResult];
}

export const AWAITING_FIRST_PROBE = 'awaiting first probe';

interface Loop {
  readonly key: string;
  spec: HealthCheckSpec;
  state: HealthState;
  published: HealthResult;
  timer: Timer | undefined;
  /** The probe under way; a replacement loop for the same key waits for it. */
  inFlight: Promise<void> | undefined;
  abort: AbortController | undefined;
  /** The runtime's time at the start of the latest probe. */
  lastStart: number | undefined;
  /** Bumped when the target changes or the loop stops: an older probe's result is dropped. */
  generation: number;
  stopped: boolean;
}

export class HealthMonitor extends EventEmitter<HealthMonitorEvents> {
  private readonly loops = new Map<string, Loop>();
  /** Probes of stopped loops still finishing; a service added again waits for its old probe. */
  private readonly draining = new Map<string, Promise<void>>();
  private readonly now: () => number;
  private readonly runtime: Clock & Scheduler;
  private readonly log: Log;
  private readonly probe: Prober;
  private readonly node: string | undefined;
  private closed = false;

  constructor(options: HealthMonitorOptions = {}) {
    super();
    this.runtime = options.runtime ?? REAL_BACKGROUND_RUNTIME;
    // Called through the runtime, never detached: a runtime may be a class whose now() reads its own fields.
    this.now = options.now ?? (() => this.runtime.now());
    this.log = options.logger ?? SILENT_LOG;
    this.probe = options.probe ?? runProbe;
    this.node = options.node;
  }

  /** Converges to exactly these services: starts, re-configures and stops loops; the same spec changes nothing. */
  update(services: readonly MonitoredService[]): void {
    if (this.closed) return;
    const wanted = new Map<string, HealthCheckSpec>();
    for (const s of services) if (s.spec !== undefined) wanted.set(s.key, s.spec);
    for (const [key, loop] of this.loops) {
      if (!wanted.has(key)) this.stop(loop);
    }
    for (const [key, spec] of wanted) {
      const loop = this.loops.get(key);
      if (!loop) this.start(key, spec);
      else if (!sameSpec(loop.spec, spec)) this.reconfigure(loop, spec);
    }
  }

  /** Every health-checked service's verdict (services without a check are absent). */
  results(): ReadonlyMap<string, HealthResult> {
    return new Map([...this.loops].map(([key, loop]) => [key, loop.published]));
  }

  /** Stops every loop and aborts probes under way; resolves once they have ended. */
  close(): Promise<void> {
    this.closed = true;
    for (const loop of this.loops.values()) this.stop(loop);
    return Promise.all([...this.draining.values()]).then(() => undefined);
  }

  // ------------------------------------------------------------------------------------------ loops

  private start(key: string, spec: HealthCheckSpec): void {
    const loop: Loop = {
      key,
      spec,
      state: initialHealthState(spec, this.now()),
      published: { state: 'failing', since: this.now(), detail: AWAITING_FIRST_PROBE },
      timer: undefined,
      inFlight: undefined,
      abort: undefined,
      lastStart: undefined,
      generation: 0,
      stopped: false,
    };
    this.loops.set(key, loop);
    this.schedule(loop, 0);
  }

  private reconfigure(loop: Loop, spec: HealthCheckSpec): void {
    const sameTarget = loop.spec.kind === spec.kind && loop.spec.target === spec.target;
    loop.spec = spec;
    if (sameTarget) {
      loop.state = withThresholds(loop.state, spec);
      // A pending wait follows the new interval; a probe under way schedules with it when it ends.
      if (loop.timer) this.schedule(loop, this.delayAfter(loop));
      return;
    }
    loop.generation++;
    loop.state = initialHealthState(spec, this.now());
    loop.abort?.abort();
    if (!loop.inFlight) this.schedule(loop, 0);
    // else: the aborted probe ends at once and its loop schedules the new target's first probe.
  }

  private stop(loop: Loop): void {
    loop.stopped = true;
    loop.generation++;
    loop.timer?.cancel();
    loop.timer = undefined;
    loop.abort?.abort();
    this.loops.delete(loop.key);
    const pending = loop.inFlight;
    if (pending) {
      this.draining.set(loop.key, pending);
      void pending.then(() => {
        if (this.draining.get(loop.key) === pending) this.draining.delete(loop.key);
      });
    }
  }

  private schedule(loop: Loop, delayMs: number): void {
    if (loop.stopped) return;
    loop.timer?.cancel();
    loop.timer = this.runtime.after(delayMs, () => {
      loop.timer = undefined;
      this.runOnce(loop);
    });
  }

  private delayAfter(loop: Loop): number {
    if (loop.lastStart === undefined) return 0;
    // Clamped to one interval: a clock stepped backwards must not stall the loop for the size of the step.
    return Math.min(loop.spec.intervalMs, Math.max(0, loop.lastStart + loop.spec.intervalMs - this.runtime.now()));
  }

  private runOnce(loop: Loop): void {
    if (loop.stopped || loop.inFlight) return;
    const previous = this.draining.get(loop.key);
    if (previous) {
      // The same service was removed and added back while its old probe was still running: no overlap.
      void previous.then(() => this.schedule(loop, 0));
      return;
    }
    const generation = loop.generation;
    const spec = loop.spec;
    const abort = new AbortController();
    loop.abort = abort;
    loop.lastStart = this.runtime.now();
    loop.inFlight = this.probe(spec, abort.signal)
      .catch((error: unknown): ProbeResult => ({ ok: false, detail: `probe failed: ${String((error as Error)?.message ?? error)}` }))
      .then((result) => {
        loop.inFlight = undefined;
        loop.abort = undefined;
        if (loop.stopped) return;
        if (generation === loop.generation) this.record(loop, spec, result);
        this.schedule(loop, generation === loop.generation ? this.delayAfter(loop) : 0);
      });
  }

  private record(loop: Loop, spec: HealthCheckSpec, result: ProbeResult): void {
    const now = this.now();
    const step = reduceHealth(loop.state, result, now);
    loop.state = step.state;
    this.log.debug({ event: 'healthProbe', service: loop.key, check: spec.target, ok: result.ok, detail: result.detail }, 'health probe');
    const status = step.state.status === 'passing' ? 'passing' : 'failing';
    const flipped = status !== loop.published.state;
    loop.published = { state: status, since: flipped ? now : loop.published.since, detail: result.detail };
    this.emit('probed', loop.key, loop.published);
    // A check that never passed was published as failing from the start, so its first failed probe flips
    // nothing; it is still the first time anyone hears why this node will not hold the IP: said once, here.
    const firstFailure = step.changed?.cause === 'firstProbe' && status === 'failing';
    if (!step.changed || (!flipped && !firstFailure)) return;
    logHealthChange(this.log, { service: loop.key, node: this.node, check: spec.target, result: result.detail }, step.changed);
    this.emit('change', loop.key, loop.published, step.changed);
  }
}

interface HealthLogSubject {
  readonly service: string;
  readonly node: string | undefined;
  readonly check: string;
  /** The latest probe's detail: "HTTP 503", "connect ECONNREFUSED 127.0.0.1:8080", "timed out after 1000 ms". */
  readonly result: string;
}

/**
 * One line per verdict change: failing at warn (this node gives up the service's IP, or never takes it), passing
 * at info (back to normal). Probes that change nothing stay at debug (healthProbe), so a check failing for days
 * is logged once, not every second.
 */
function logHealthChange(log: Log, subject: HealthLogSubject, change: HealthChange): void {
  const where = subject.node === undefined ? '' : ` on ${subject.node}`;
  // The node is in the message, not the fields: the daemon's logger puts it on every line already.
  const fields = { service: subject.service, check: subject.check, result: subject.result, cause: change.cause, reason: change.reason };
  if (change.to === 'passing') {
    log.info({ event: 'healthCheckPassing', ...fields }, `health check ${subject.service}${where} is passing: ${change.reason}`);
    return;
  }
  const never = change.cause === 'firstProbe' ? ' (it has not passed since monitoring began)' : '';
  log.warn(
    { event: 'healthCheckFailing', ...fields },
    `health check ${subject.service}${where} is failing${never}: ${change.reason}; ${subject.node ?? 'this node'} does not hold its IP`,
  );
}

function sameSpec(a: HealthCheckSpec, b: HealthCheckSpec): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
