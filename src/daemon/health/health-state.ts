/**
 * The rise/fall state machine of one health check, as a pure reducer: (state, probe result, now) -> state and,
 * when the verdict flips, the change with its reason. The shell (health-monitor.ts) runs the probes and feeds
 * the results in; nothing here knows about timers or sockets.
 *
 * Start-up: a check starts 'unknown' and the first probe decides at once (pass -> passing, fail -> failing);
 * rise and fall apply from then on. Requiring `rise` passes first would hold every service IP back for
 * rise x interval after each daemon start, and treating 'unknown' as passing would announce a service nobody
 * has seen answer. 'unknown' is not serving: until its first probe a node does not claim the service.
 */

export type HealthStatus = 'unknown' | 'passing' | 'failing';

/** One probe's outcome; `detail` is the short human reason ("HTTP 503", "exit 3", "timed out after 1000 ms"). */
export interface ProbeResult {
  readonly ok: boolean;
  readonly detail: string;
}

export interface HealthThresholds {
  /** Consecutive passes that turn failing into passing. */
  readonly rise: number;
  /** Consecutive failures that turn passing into failing. */
  readonly fall: number;
}

export interface HealthState extends HealthThresholds {
  readonly status: HealthStatus;
  /** When the status last changed (for 'unknown': when checking began). */
  readonly since: number;
  /** Consecutive passes so far (0 after a failure). */
  readonly passes: number;
  /** Consecutive failures so far (0 after a pass). */
  readonly failures: number;
  /** The latest probe's detail ('' before the first probe). */
  readonly detail: string;
  readonly lastProbeAt: number | undefined;
}

/** Why the verdict flipped: the first probe, `rise` passes in a row, or `fall` failures in a row. */
export type HealthChangeCause = 'firstProbe' | 'rise' | 'fall';

export interface HealthChange {
  readonly from: HealthStatus;
  readonly to: Exclude<HealthStatus, 'unknown'>;
  readonly cause: HealthChangeCause;
  /** For people: "2 consecutive probes failed (fall 2), last: HTTP 503". */
  readonly reason: string;
}

export interface HealthStep {
  readonly state: HealthState;
  readonly changed?: HealthChange;
}

export function initialHealthState(thresholds: HealthThresholds, now: number): HealthState {
  return {
    status: 'unknown',
    since: now,
    passes: 0,
    failures: 0,
    detail: '',
    lastProbeAt: undefined,
    rise: thresholds.rise,
    fall: thresholds.fall,
  };
}

/** New rise/fall for a reconfigured check of the same target: the verdict and the counts so far are kept. */
export function withThresholds(state: HealthState, thresholds: HealthThresholds): HealthState {
  return { ...state, rise: thresholds.rise, fall: thresholds.fall };
}

export function reduceHealth(state: HealthState, probe: ProbeResult, now: number): HealthStep {
  const counted: HealthState = {
    ...state,
    passes: probe.ok ? state.passes + 1 : 0,
    failures: probe.ok ? 0 : state.failures + 1,
    detail: probe.detail,
    lastProbeAt: now,
  };
  const to = nextStatus(counted, probe.ok);
  if (to === undefined) return { state: counted };
  const changed: HealthChange = { from: state.status, to, cause: causeOf(state.status, to), reason: reasonOf(counted, to) };
  return { state: { ...counted, status: to, since: now }, changed };
}

function nextStatus(s: HealthState, ok: boolean): HealthChange['to'] | undefined {
  if (s.status === 'unknown') return ok ? 'passing' : 'failing';
  if (s.status === 'passing' && !ok && s.failures >= s.fall) return 'failing';
  if (s.status === 'failing' && ok && s.passes >= s.rise) return 'passing';
  return undefined;
}

function causeOf(from: HealthStatus, to: HealthChange['to']): HealthChangeCause {
  if (from === 'unknown') return 'firstProbe';
  return to === 'passing' ? 'rise' : 'fall';
}

function reasonOf(s: HealthState, to: HealthChange['to']): string {
  const detail = s.detail === '' ? '' : `: ${s.detail}`;
  if (s.status === 'unknown') return `first probe ${to === 'passing' ? 'passed' : 'failed'}${detail}`;
  if (to === 'passing') return `${s.passes} consecutive probes passed (rise ${s.rise})${detail}`;
  return `${s.failures} consecutive probes failed (fall ${s.fall})${detail}`;
}
